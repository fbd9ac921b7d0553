// DELETE /members/:id, what goes right: the answer is `{id, deleted: true}` as every DELETE's (contract
// section 1), the member is gone from the list and their session is dead.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { addMember, expectError, signupUser } from '../../../test/support/http.ts';

for (const target of await storeTargets()) {
  describe(`DELETE /members/:id happy (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'members_remove_happy');
    });
    after(() => h.close());

    test('200 {id, deleted: true}; the member is no longer listed and their session is dead', async () => {
      const owner = await signupUser(h.app, 'remover');
      const { member } = await addMember(h.app, owner, 'viewer');
      const reply = await owner.api.delete(`/api/v1/members/${member.id}`);
      assert.equal(reply.status, 200, reply.raw);
      assert.equal(reply.body.success, true);
      assert.equal(reply.body.data.id, member.id);
      assert.equal(reply.body.data.deleted, true);
      const listed = await owner.api.get('/api/v1/members');
      assert.deepEqual(
        listed.body.data.items.map((m: { id: string }) => m.id),
        [owner.id],
      );
      expectError(await member.api.get('/api/v1/auth/me'), 401, 'UNAUTHORIZED');
    });
  });
}
