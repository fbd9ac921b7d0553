import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/errors.ts';
import type { ConsentPreview } from '../src/api/oauth.ts';
import { can } from '../src/roles.ts';
import {
  allowProblem,
  clientIdentityWords,
  consentHeading,
  consentStage,
  isConsentPath,
  type ParsedAuthorize,
  parseAuthorizeQuery,
  refusalWords,
  requestedScopes,
  safeRedirect,
  toggleScope,
} from '../src/views/oauthConsent.ts';

const QUERY =
  'response_type=code&client_id=https%3A%2F%2Fclaude.ai%2Foauth%2Fmcp-oauth-client-metadata' +
  '&redirect_uri=https%3A%2F%2Fclaude.ai%2Fapi%2Fmcp%2Fauth_callback&code_challenge=abc-DEF_123' +
  '&code_challenge_method=S256&resource=https%3A%2F%2Fwallet.example.com%2Fmcp&scope=read+write&state=xyz%2F1';

const PREVIEW: ConsentPreview = {
  client: {
    clientId: 'https://claude.ai/oauth/mcp-oauth-client-metadata',
    name: 'Claude',
    redirectHost: 'claude.ai',
    metadataDocument: true,
  },
  scopes: ['read', 'write'],
  resource: 'https://wallet.example.com/mcp',
};

describe('reading the authorization request', () => {
  it('turns the query parameters into the preview body, decoded, in camelCase', () => {
    expect(parseAuthorizeQuery(`?${QUERY}`)).toEqual({
      ok: true,
      request: {
        responseType: 'code',
        clientId: 'https://claude.ai/oauth/mcp-oauth-client-metadata',
        redirectUri: 'https://claude.ai/api/mcp/auth_callback',
        codeChallenge: 'abc-DEF_123',
        codeChallengeMethod: 'S256',
        resource: 'https://wallet.example.com/mcp',
        scope: 'read write',
        state: 'xyz/1',
      },
    });
    // With or without the question mark (wouter's useSearch gives it without).
    expect(parseAuthorizeQuery(QUERY)).toEqual(parseAuthorizeQuery(`?${QUERY}`));
  });

  it('leaves out absent and empty parameters and ignores unknown ones; the server judges the rest', () => {
    expect(parseAuthorizeQuery('client_id=abc&scope=&state=&prompt=consent')).toEqual({
      ok: true,
      request: { clientId: 'abc' },
    });
  });

  it('refuses a parameter given twice (the body could carry only one of them)', () => {
    const parsed = parseAuthorizeQuery(`${QUERY}&redirect_uri=https%3A%2F%2Fevil.example`);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toMatch(/“redirect_uri” more than once/);
  });

  it('refuses a request that does not say which app asks', () => {
    const parsed = parseAuthorizeQuery('');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toMatch(/does not say which app/);
  });

  it('knows the consent page’s path, with or without a trailing slash', () => {
    expect(isConsentPath('/oauth/authorize')).toBe(true);
    expect(isConsentPath('/oauth/authorize/')).toBe(true);
    expect(isConsentPath('/oauth/authorizex')).toBe(false);
    expect(isConsentPath('/')).toBe(false);
  });
});

describe('what the consent page shows', () => {
  const parsed = parseAuthorizeQuery(QUERY);
  const stage = (over: {
    parsed?: ParsedAuthorize;
    role?: Parameters<typeof consentStage>[0]['role'];
    preview?: ConsentPreview;
    previewError?: ApiError;
  }) => consentStage({ parsed, role: 'owner', preview: undefined, previewError: undefined, ...over });

  it('a malformed request is invalid before anything is asked', () => {
    expect(stage({ parsed: parseAuthorizeQuery('') }).stage).toBe('invalid');
  });

  it('the server’s 400 is invalid, with its message, whatever the role', () => {
    const error = new ApiError(
      'OAUTH_INVALID_REQUEST',
      400,
      'redirect_uri is not registered for this client',
    );
    const shown = stage({ previewError: error, role: 'viewer' });
    expect(shown).toEqual({
      stage: 'invalid',
      message:
        'This request to connect an app is not valid: redirect_uri is not registered for this client. Start again from the app.',
    });
  });

  it('loads until both the preview and the role are known', () => {
    expect(stage({}).stage).toBe('loading');
    expect(stage({ preview: PREVIEW, role: null }).stage).toBe('loading');
  });

  it('is ready for an admin or an owner', () => {
    expect(stage({ preview: PREVIEW, role: 'admin' })).toEqual({ stage: 'ready', preview: PREVIEW });
    expect(stage({ preview: PREVIEW, role: 'owner' }).stage).toBe('ready');
  });

  it('below admin: the app is shown, with why only Deny is offered', () => {
    for (const role of ['approver', 'viewer'] as const) {
      const shown = stage({ preview: PREVIEW, role });
      expect(shown.stage).toBe('refused');
      expect(shown.stage === 'refused' && shown.preview).toEqual(PREVIEW);
      expect(shown.stage === 'refused' && shown.why).toMatch(/an owner or an admin of your organization can/);
    }
    expect(refusalWords('approver')).toMatch(/^As an Approver, you do not have the right/);
    expect(refusalWords('viewer')).toMatch(/^As a Viewer, you/);
  });

  it('a preview refused for the role is refused without the app’s details', () => {
    const shown = stage({ previewError: new ApiError('FORBIDDEN_ROLE', 403, 'needs admin'), role: 'viewer' });
    expect(shown.stage === 'refused' && shown.preview).toBeNull();
  });

  it('any other failure can be tried again', () => {
    expect(stage({ previewError: new ApiError('NETWORK_ERROR', 0, '') }).stage).toBe('failed');
    expect(stage({ previewError: new ApiError('SERVICE_UNAVAILABLE', 503, '') }).stage).toBe('failed');
  });

  it('only admins and owners may connect an app', () => {
    expect(['owner', 'admin', 'approver', 'viewer'].map((role) => can(role as never, 'connectApp'))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe('the owner’s choice', () => {
  it('ticks the scopes the app asked for, in the page’s order, and knows no others', () => {
    expect(requestedScopes(['write', 'read'])).toEqual(['read', 'write']);
    expect(requestedScopes(['read', 'admin'])).toEqual(['read']);
    expect(toggleScope(['read', 'write'], 'read', false)).toEqual(['write']);
    expect(toggleScope(['write'], 'read', true)).toEqual(['read', 'write']);
  });

  it('Allow needs a wallet and at least one scope', () => {
    expect(allowProblem('', ['read'])).toBe('Choose an agent wallet.');
    expect(allowProblem('wal_1', [])).toBe('Choose at least one scope.');
    expect(allowProblem('wal_1', ['write'])).toBeNull();
  });

  it('names the app in the heading, and how it is identified', () => {
    expect(consentHeading('Claude')).toBe('Allow Claude to use an agent wallet?');
    expect(clientIdentityWords(PREVIEW.client)).toContain(PREVIEW.client.clientId);
    expect(clientIdentityWords({ ...PREVIEW.client, metadataDocument: false })).toMatch(
      /registered itself.*check the address above/,
    );
  });
});

describe('where the browser goes after the decision', () => {
  it('goes to web, loopback and app-scheme addresses unchanged', () => {
    for (const url of [
      'https://claude.ai/api/mcp/auth_callback?code=c&state=s',
      'http://127.0.0.1:33418/callback?code=c',
      'cursor://anysphere.cursor-retrieval/oauth/callback?code=c',
      'vscode://vscode.github-authentication/did-authenticate?code=c',
    ]) {
      expect(safeRedirect(url)).toBe(url);
    }
  });

  it('never to a script, data or unparsable address', () => {
    for (const url of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,x', 'not a url', '']) {
      expect(safeRedirect(url)).toBeNull();
    }
  });
});
