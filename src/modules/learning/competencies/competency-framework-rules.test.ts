import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frameworkEntries, frameworkEntry, itemTypesOf } from './competency-framework-rules.js';

describe('A CASE framework read as catalogue entries', () => {
  it('names an item by its code and short statement, describes it by its full statement', () => {
    assert.deepEqual(
      frameworkEntry({ fullStatement: 'Listens actively', abbreviatedStatement: ' Listening ', humanCodingScheme: 'COM.3' }, 4),
      {
        index: 4,
        name: 'COM.3 Listening',
        description: 'Listens actively',
        nameFrom: 'humanCodingScheme+abbreviatedStatement',
      },
    );
    assert.deepEqual(
      frameworkEntry({ identifier: 'abc', fullStatement: ' Writes reports ', abbreviatedStatement: '', humanCodingScheme: null }, 0),
      {
        index: 0,
        name: 'Writes reports',
        description: ' Writes reports ',
        identifier: 'abc',
        nameFrom: 'fullStatement',
      },
    );
  });

  it('keeps the items of the types asked for, case-insensitively, and counts the others', () => {
    const items = [
      { fullStatement: 'a', CFItemType: 'Domain' },
      { fullStatement: 'b', CFItemType: 'competency' },
      { fullStatement: 'c' },
      { fullStatement: 'd', CFItemType: ' Skill ' },
    ];
    assert.deepEqual(
      frameworkEntries(items, ['Competency', 'SKILL']).entries.map((entry) => [entry.index, entry.name]),
      [
        [1, 'b'],
        [3, 'd'],
      ],
    );
    assert.equal(frameworkEntries(items, ['Competency']).skipped, 3);
    assert.equal(frameworkEntries(items).entries.length, 4);
    assert.deepEqual(itemTypesOf(' Competency, ,Skill,'), ['Competency', 'Skill']);
    assert.equal(itemTypesOf(' , '), undefined);
    assert.equal(itemTypesOf(undefined), undefined);
  });
});
