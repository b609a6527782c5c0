import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributeValue, currentJobId, positionJobId, type JobLinkSettings } from './actor-job-rules.js';

const settings: JobLinkSettings = { organisationAttribute: 'position', jobAttribute: 'jobCode', positionJobAttribute: 'job' };
const jobs = new Set(['J1', 'J2']);
const isJob = (id: string) => jobs.has(id);
const dev = { attributes: { job: 'J2' } };

describe('attributeValue', () => {
  it('reads own, non-empty values of a named attribute only', () => {
    assert.equal(attributeValue({ a: 'x' }, 'a'), 'x');
    assert.equal(attributeValue({ a: '' }, 'a'), undefined);
    assert.equal(attributeValue({ a: 'x' }, null), undefined);
    assert.equal(attributeValue(null, 'a'), undefined);
    assert.equal(attributeValue({}, 'toString'), undefined);
  });
});

describe('currentJobId', () => {
  it('is the own jobAttribute value when it names a job, whatever the position says', () => {
    assert.equal(currentJobId({ jobCode: 'J1' }, settings, dev, isJob), 'J1');
  });

  it('is the position’s job when the own value is absent, empty or names no job', () => {
    assert.equal(currentJobId({}, settings, dev, isJob), 'J2');
    assert.equal(currentJobId({ jobCode: '' }, settings, dev, isJob), 'J2');
    assert.equal(currentJobId({ jobCode: 'J-GONE' }, settings, dev, isJob), 'J2');
    assert.equal(currentJobId(null, settings, dev, isJob), 'J2');
  });

  it('is none when neither names a job', () => {
    assert.equal(currentJobId({ jobCode: 'J-GONE' }, settings, { attributes: { job: 'J-GONE' } }, isJob), undefined);
    assert.equal(currentJobId({}, settings, undefined, isJob), undefined);
    assert.equal(currentJobId({}, settings, { attributes: {} }, isJob), undefined);
  });

  it('reads the position only while both organisationAttribute and positionJobAttribute are set', () => {
    assert.equal(currentJobId({}, { ...settings, positionJobAttribute: null }, dev, isJob), undefined);
    assert.equal(currentJobId({}, { ...settings, organisationAttribute: null }, dev, isJob), undefined);
    assert.equal(currentJobId({ jobCode: 'J1' }, { ...settings, jobAttribute: null }, dev, isJob), 'J2');
  });

  it('positionJobId reads the entry’s attribute, own properties only', () => {
    assert.equal(positionJobId(dev, settings), 'J2');
    assert.equal(positionJobId(undefined, settings), undefined);
    assert.equal(positionJobId(dev, { ...settings, positionJobAttribute: 'constructor' }), undefined);
  });
});
