import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { operationIdOf } from './common-schemas.js';

describe('operationIdOf', () => {
  it('names the method and the path’s segments, without /api/ and the parameters (docs/api-description.md)', () => {
    assert.equal(operationIdOf('post', '/api/import/users'), 'POST:import.users');
    assert.equal(operationIdOf('PUT', '/xapi/activities/state'), 'PUT:xapi.activities.state');
    assert.equal(operationIdOf('DELETE', '/api/auth/basic/{username}'), 'DELETE:auth.basic');
    assert.equal(operationIdOf('GET', '/.well-known/oauth-authorization-server'), 'GET:well_known.oauth_authorization_server');
    assert.equal(operationIdOf('GET', '/api/sso/connections/{name}/metadata'), 'GET:sso.connections.metadata');
  });

  it('adds .item to a GET of /api/ naming one item by a last parameter, so the list keeps its id', () => {
    assert.equal(operationIdOf('GET', '/api/sso/connections'), 'GET:sso.connections');
    assert.equal(operationIdOf('GET', '/api/sso/connections/{name}'), 'GET:sso.connections.item');
    assert.equal(operationIdOf('GET', '/api/sso/connections/:name'), 'GET:sso.connections.item');
    assert.equal(operationIdOf('PUT', '/api/sso/connections/{name}'), 'PUT:sso.connections');
    assert.equal(operationIdOf('GET', '/auth/sso/launch/{tenant}'), 'GET:auth.sso.launch', 'outside /api/: no item read');
  });
});
