// POST /members/invitations must not tell an inviter who has an account: an email with a login anywhere (another
// organization's owner, this organization's own member) is answered exactly as a fresh one — 201, the same
// fields, the same statements run — and the person with the login meets 409 EMAIL_TAKEN when they sign up with
// the token; the invitation stays open, and nothing joined.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { addMember, call, expectError, type Reply, signupUser } from '../../../test/support/http.ts';

const PASSWORD = 'correct horse battery';

for (const target of await storeTargets()) {
  describe(`POST /members/invitations security (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'members_invite_security');
    });
    after(() => h.close());

    /** The invitation's answer, and how many statements the request sent to the database. */
    async function measured(invite: () => Promise<Reply>) {
      const before = h.services.store.statementCount();
      const reply = await invite();
      return { reply, statements: h.services.store.statementCount() - before };
    }

    test('an email with a login gets the same answer as a fresh one, for the same work', async () => {
      const owner = await signupUser(h.app, 'inviter');
      const stranger = await signupUser(h.app, 'stranger');
      const { member } = await addMember(h.app, owner, 'viewer');
      const invite = (email: string) => () =>
        owner.api.post('/api/v1/members/invitations', { email, role: 'approver' });
      // The session's first request writes its lastUsedAt: warm it so every measured request is alike.
      await owner.api.get('/api/v1/members');
      const cases = [
        ['a fresh address', `fresh.${process.pid}@example.test`],
        ['another organization’s owner', stranger.email],
        ['a member of this organization', member.email],
        ['this owner', owner.email],
        ['another fresh address', `fresh2.${process.pid}@example.test`],
      ] as const;
      const answers = [];
      for (const [what, email] of cases) {
        const { reply, statements } = await measured(invite(email));
        assert.equal(reply.status, 201, `${what}: ${reply.raw}`);
        assert.equal(reply.body.data.email, email, what);
        assert.equal(reply.body.data.role, 'approver', what);
        answers.push({ what, keys: Object.keys(reply.body.data).sort(), statements });
      }
      const [fresh] = answers;
      for (const answer of answers) {
        assert.deepEqual(answer.keys, fresh?.keys, `${answer.what}: other fields`);
        assert.equal(answer.statements, fresh?.statements, `${answer.what}: other work`);
      }
    });

    test('the person with a login meets EMAIL_TAKEN at signup; the invitation stays open, nothing joins', async () => {
      const owner = await signupUser(h.app, 'inviter');
      const stranger = await signupUser(h.app, 'stranger');
      const invited = await owner.api.post('/api/v1/members/invitations', {
        email: stranger.email,
        role: 'admin',
      });
      assert.equal(invited.status, 201, invited.raw);
      const joined = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: stranger.email,
        password: PASSWORD,
        invitationToken: invited.body.data.token,
      });
      expectError(joined, 409, 'EMAIL_TAKEN');
      const members = await owner.api.get('/api/v1/members');
      assert.deepEqual(
        members.body.data.items.map((m: { email: string }) => m.email),
        [owner.email],
      );
      const open = await owner.api.get('/api/v1/members/invitations');
      assert.deepEqual(
        open.body.data.items.map((i: { id: string }) => i.id),
        [invited.body.data.id],
      );
      // The stranger's own organization is untouched: still its owner.
      const theirs = await stranger.api.get('/api/v1/organization');
      assert.equal(theirs.body.data.role, 'owner');
    });
  });
}
