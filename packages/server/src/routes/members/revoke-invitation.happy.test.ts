// DELETE /members/invitations/:id: answers `{id, deleted: true}` as every DELETE does (contract section 1), and
// the token is refused from then on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`DELETE /members/invitations/:id happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'members_revoke_inv');
    });
    after(() => h.close());

    test('200 {id, deleted: true}; the invitation is no longer listed and its token is refused', async () => {
      const owner = await signupUser(h.app, 'revoker');
      const email = `revoked.${process.pid}@example.test`;
      const invited = await owner.api.post('/api/v1/members/invitations', { email, role: 'viewer' });
      assert.equal(invited.status, 201, invited.raw);
      const id = invited.body.data.id as string;
      const reply = await owner.api.delete(`/api/v1/members/invitations/${id}`);
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assert.equal(reply.body.data.id, id);
      assert.equal(reply.body.data.deleted, true);
      const listed = await owner.api.get('/api/v1/members/invitations');
      assert.deepEqual(listed.body.data.items, []);
      const joined = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email,
        password: 'correct horse battery',
        invitationToken: invited.body.data.token,
      });
      expectError(joined, 400, 'VALIDATION_ERROR');
      expectError(await owner.api.delete(`/api/v1/members/invitations/${id}`), 404, 'NOT_FOUND');
    });
  });
}
