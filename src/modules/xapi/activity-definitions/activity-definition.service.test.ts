import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeDefinition } from './activity-definition.service.js';

describe('mergeDefinition', () => {
  it('takes the newer definition property by property and merges name and description languages', () => {
    assert.deepEqual(
      mergeDefinition(
        { name: { en: 'Meeting' }, description: { en: 'A meeting' }, type: 'http://example.com/old', moreInfo: 'http://example.com/m' },
        { name: { fr: 'Réunion', en: 'Meeting!' }, type: 'http://example.com/new' },
      ),
      {
        name: { en: 'Meeting!', fr: 'Réunion' },
        description: { en: 'A meeting' },
        type: 'http://example.com/new',
        moreInfo: 'http://example.com/m',
      },
    );
  });

  it('keeps the newer definition when there is no older one', () => {
    assert.deepEqual(mergeDefinition(undefined, { name: { en: 'x' } }), { name: { en: 'x' } });
  });
});
