/**
 * The API as MCP tools (`POST /mcp`, src/mcp/): a client built with the official SDK
 * (`@modelcontextprotocol/client`) over Streamable HTTP and over stdio (bin/wallet-pass-mcp.js
 * relaying to the service) lists the tools generated from the contract, calls createPass, getPass
 * and updateLoyalty, and the change is seen through REST; every `/api/v1` operation is a tool
 * for a secret key; a wrong key is refused with 401 before any tool; a refused call is a tool
 * error carrying the JSON:API error document.
 */
import { contractOperations } from './support/contractOperations.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { loadApiDocument } from '../src/app.ts';
import { documentOperations } from '../src/http/routes.ts';
import { requiredScopes } from '../src/http/authorize.ts';
import { allowed } from '../src/mcp/scopes.ts';
import { operationTools } from '../src/mcp/tools.ts';
import { listenWith, type Listening } from './support/listen.ts';
import { createTemplate, loyaltyTemplate } from './support/passes.ts';
import { startTestService, type TestService } from './support/testService.ts';

let service: TestService;
let listening: Listening;
let token: string;
let templateId: string;
let mcpUrl: URL;

beforeAll(async () => {
  service = await startTestService({ jobs: 'work' });
  ({ token } = await service.createAccount());
  templateId = await createTemplate(service, token, loyaltyTemplate());
  listening = await listenWith(service.app);
  mcpUrl = new URL(`http://127.0.0.1:${listening.port}/mcp`);
});
afterAll(async () => {
  await listening?.close();
  await service?.close();
});

/** A client of the SDK connected over Streamable HTTP with `key`: 2025-11-25 (the SDK's default), or 2026-07-28 when pinned. */
async function httpClient(key: string, query = '', pin?: '2026-07-28'): Promise<Client> {
  const client = new Client({ name: 'wallet-pass-service-test', version: '1.0.0' }, pin ? { versionNegotiation: { mode: { pin } } } : {});
  const url = new URL(mcpUrl);
  url.search = query;
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] };

/** Issues a pass with createPass, shows it with getPass, adds points with updateLoyalty, and checks the balance through REST. */
async function issueShowAndChange(client: Client): Promise<void> {
  const created = (await client.callTool({
    name: 'createPass',
    arguments: { passTemplate: templateId, idempotencyKey: `mcp-${Math.random()}`, body: { pass: { member: 'Ada Lovelace', points: '120' } } },
  })) as ToolResult;
  expect(created.isError).toBeFalsy();
  const pass = (created.structuredContent as { data: { id: string } }).data;
  expect(JSON.parse(created.content[0]!.text!)).toEqual(created.structuredContent);

  const shown = (await client.callTool({ name: 'getPass', arguments: { id: pass.id } })) as ToolResult;
  expect((shown.structuredContent as { data: { id: string } }).data.id).toBe(pass.id);

  const changed = (await client.callTool({ name: 'updateLoyalty', arguments: { id: pass.id, body: { balance: 30 } } })) as ToolResult;
  expect(changed.isError).toBeFalsy();
  expect((changed.structuredContent as { meta: { loyalty: { balance: number } } }).meta.loyalty.balance).toBe(150);

  const rest = await service.api.get(`/api/v1/loyalty/${pass.id}`).set(service.auth(token)).expect(200);
  expect(rest.body.meta.loyalty.balance).toBe(150);
}

describe('MCP over Streamable HTTP', () => {
  it('lists the tools of the contract, and createPass, getPass and updateLoyalty change what REST shows (protocol revision 2026-07-28)', async () => {
    const client = await httpClient(token, '', '2026-07-28');
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      const createPass = tools.find((t) => t.name === 'createPass')!;
      expect(createPass.title).toBe('Issue a pass');
      expect(createPass.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
      expect(createPass.inputSchema.required).toEqual(expect.arrayContaining(['passTemplate', 'body']));
      expect(tools.find((t) => t.name === 'getPass')!.annotations).toMatchObject({ readOnlyHint: true });
      expect(tools.find((t) => t.name === 'nullifyPass')!.annotations).toMatchObject({ destructiveHint: true });
      expect(JSON.stringify(tools)).not.toContain('$ref');
      await issueShowAndChange(client);
    } finally {
      await client.close();
    }
  });

  it('makes every /api/v1 operation a tool for a secret key, and nothing else', async () => {
    const client = await httpClient(token);
    try {
      const { tools } = await client.listTools();
      // A CORS preflight (preflightCreatePass) is the browser's, with no key: no tool; nor are
      // signing in and a person's own session, passkeys and password (no key, or the cookie only).
      const api = contractOperations()
        .filter((o) => o.path.startsWith('/api/v1/') && o.method !== 'options' && o.auth === 'bearerAuth')
        .map((o) => o.operationId);
      expect(api).toContain('listMembers');
      expect(api).not.toContain('getSession');
      expect(tools.map((t) => t.name).sort()).toEqual(api.sort());
      const annotations = (name: string) => tools.find((t) => t.name === name)!.annotations;
      expect(annotations('updatePass')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
      expect(annotations('createPassTemplate')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
      expect(annotations('cancelBatch')).toMatchObject({ destructiveHint: true });
      expect(annotations('deleteWebhookSubscription')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    } finally {
      await client.close();
    }
  });

  it('lists for a restricted key exactly the operations its scopes allow, and records its tool calls in the audit log as the mcp channel', async () => {
    const { accountId } = await service.createAccount('Restricted agent');
    const restricted = await service.api
      .post(`/admin/v1/accounts/${accountId}/tokens`)
      .set(service.adminAuth())
      .send({ apiToken: { name: 'agent', kind: 'restricted', scopes: ['passes:read', 'passes:write'] } })
      .expect(201);
    const key = restricted.body.data.attributes.token as string;
    const document = loadApiDocument();
    const expected = documentOperations(document)
      .filter((o) => o.path.startsWith('/api/v1/'))
      .filter((o) => allowed(requiredScopes(document, document.paths[o.path]![o.method] as { security?: unknown }), new Set(['passes:read', 'passes:write'])))
      .map((o) => o.operationId)
      .sort();
    expect(expected).toEqual(expect.arrayContaining(['getPass', 'listPasses', 'updateLoyalty']));
    expect(expected).not.toContain('createPassTemplate');
    const client = await httpClient(key);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(expected);
      // A tool outside its scopes does not exist for the key (as for an unlisted tool, a protocol error).
      await expect(client.callTool({ name: 'createPassTemplate', arguments: { body: {} } })).rejects.toThrow(/Unknown tool: createPassTemplate/);
      const missing = (await client.callTool({ name: 'updateLoyalty', arguments: { id: 'no-such-pass', body: { balance: 1 } } })) as ToolResult;
      expect(missing.structuredContent).toMatchObject({ errors: [{ status: '404' }] });
    } finally {
      await client.close();
    }
    const events = await service.api
      .get('/api/v1/audit-events?operation=updateLoyalty')
      .set(
        service.auth(
          (
            await service.api
              .post(`/admin/v1/accounts/${accountId}/tokens`)
              .set(service.adminAuth())
              .send({ apiToken: { name: 'auditor' } })
          ).body.data.attributes.token,
        ),
      )
      .expect(200);
    expect(events.body.data.map((e: { attributes: { channel: string; outcome: string } }) => [e.attributes.channel, e.attributes.outcome])).toEqual([
      ['mcp', 'failure'],
    ]);
  });

  it('keeps the list to the tags asked for, and offers three meta-tools with tools=meta', async () => {
    const tagged = await httpClient(token, '?tags=loyalty');
    try {
      expect((await tagged.listTools()).tools.map((t) => t.name).sort()).toEqual(['getLoyalty', 'updateLoyalty']);
    } finally {
      await tagged.close();
    }
    const meta = await httpClient(token, '?tools=meta&tags=passes');
    try {
      expect((await meta.listTools()).tools.map((t) => t.name)).toEqual(['listOperations', 'describeOperation', 'callOperation']);
      const listed = (await meta.callTool({ name: 'listOperations', arguments: {} })) as ToolResult;
      expect((listed.structuredContent as { operations: { name: string }[] }).operations.map((o) => o.name)).toContain('getPass');
      const described = (await meta.callTool({ name: 'describeOperation', arguments: { name: 'getPass' } })) as ToolResult;
      expect(described.structuredContent).toMatchObject({ name: 'getPass', method: 'GET', path: '/api/v1/passes/{id}' });
      const called = (await meta.callTool({ name: 'callOperation', arguments: { name: 'listPasses', arguments: { perPage: 1 } } })) as ToolResult;
      expect(called.isError).toBeFalsy();
      expect(called.structuredContent).toHaveProperty('meta');
    } finally {
      await meta.close();
    }
  });

  it('answers a refused call as a tool error carrying the JSON:API error document', async () => {
    const client = await httpClient(token);
    try {
      const missing = (await client.callTool({ name: 'getPass', arguments: { id: '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10' } })) as ToolResult;
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toMatchObject({ errors: [{ status: '404', code: 'not_found' }] });
      const invalid = (await client.callTool({ name: 'updateLoyalty', arguments: { id: 'x', body: { balance: 'many' } } })) as ToolResult;
      expect(invalid.isError).toBe(true);
      expect(invalid.structuredContent).toMatchObject({ errors: [{ status: '400', code: 'validation_failed' }] });
    } finally {
      await client.close();
    }
  });

  it('serves a 2025-era client statelessly: initialize, the initialized notification (202), tools/list as an event stream; no GET stream', async () => {
    const post = (body: unknown) =>
      service.api
        .post('/mcp')
        .set(service.auth(token))
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', '2025-11-25')
        .send(body as object);
    const message = (res: { headers: Record<string, string>; text: string; body: unknown }) =>
      /^text\/event-stream/.test(res.headers['content-type'] ?? '') ? JSON.parse(/^data: (.*)$/m.exec(res.text)![1]!) : res.body;
    const initialized = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }).expect(200);
    expect(message(initialized).result).toMatchObject({ protocolVersion: '2025-11-25', capabilities: { tools: {}, resources: {}, prompts: {} } });
    expect(initialized.headers['mcp-session-id']).toBeUndefined();
    // The earlier 2025-era revisions the contract names are answered as asked.
    for (const protocolVersion of ['2025-06-18', '2025-03-26', '2024-11-05']) {
      const earlier = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      expect(message(earlier).result.protocolVersion).toBe(protocolVersion);
    }
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }).expect(202);
    const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }).expect(200);
    expect(message(listed).result.tools).toHaveLength(operationTools(loadApiDocument()).length);
    // tools/list and tools/call are answered without the SDK (src/mcp/mcpServer.ts answerDirectly):
    // the same messages as the SDK's, which answers them when `_meta` holds anything but a progress token.
    const viaSdk = { _meta: { 'example.com/trace': 'x' } };
    expect(message(await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: viaSdk }).expect(200))).toEqual(message(listed));
    const pass = await service.api
      .post(`/api/v1/passes?passTemplate=${templateId}`)
      .set(service.auth(token))
      .send({ pass: { member: 'Grace Hopper' } })
      .expect(200);
    for (const name of ['getPass', 'getLoyalty']) {
      const call = (params: object) =>
        post({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name, arguments: { id: pass.body.data.id }, ...params } });
      const direct = await call({}).expect(200);
      expect(message(direct).result.isError).toBeUndefined();
      const sdk = await call(viaSdk).expect(200);
      expect(message(direct)).toEqual(message(sdk));
      for (const header of ['content-type', 'cache-control', 'x-accel-buffering', 'connection'])
        expect([header, direct.headers[header]]).toEqual([header, sdk.headers[header]]);
    }
    const missing = (params: object) =>
      post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'getPass', arguments: { id: '0194f3a2-7c1e-7a51-9d7e-0b6a2f1c9e10' }, ...params } });
    const refused = message(await missing({}).expect(200));
    expect(refused.result).toMatchObject({ isError: true, structuredContent: { errors: [{ status: '404' }] } });
    expect(refused).toEqual(message(await missing(viaSdk).expect(200)));
    expect(message(await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'noSuchTool' } }).expect(200)).error).toMatchObject({
      code: -32602,
      message: 'Unknown tool: noSuchTool',
    });
    await service.api.get('/mcp').set(service.auth(token)).expect(405);
  });

  it('refuses a wrong key with 401 before any tool', async () => {
    const res = await service.api
      .post('/mcp')
      .set('Authorization', 'Bearer wps_wrongwrongwrongwrongwrongwrongwrongwrongwro')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .expect(401);
    expect(res.body.errors[0]).toMatchObject({ status: '401', code: 'unauthorized' });
    await expect(httpClient('wps_wrongwrongwrongwrongwrongwrongwrongwrongwro')).rejects.toThrow(/401/);
  });

  it('serves the contract as a resource and the prompt that issues a loyalty pass', async () => {
    const client = await httpClient(token);
    try {
      const { contents } = await client.readResource({ uri: 'openapi://wallet-pass-service/openapi.json' });
      expect(JSON.parse((contents[0] as { text: string }).text).paths['/mcp']).toBeDefined();
      const prompt = await client.getPrompt({ name: 'issueLoyaltyPass', arguments: { holderName: 'Ada', points: '50' } });
      expect((prompt.messages[0]!.content as { text: string }).text).toMatch(/createPass[\s\S]*updateLoyalty/);
    } finally {
      await client.close();
    }
  });

  it('generates tools from the operations alone: schemas without $ref, outputs as objects; one bearer requirement per operation', () => {
    const document = loadApiDocument();
    // requiredScopes (src/http/authorize.ts) reads one bearerAuth requirement per operation.
    const bearerRequirements = documentOperations(document).map(
      (o) =>
        ((document.paths[o.path]![o.method] as { security?: object[] }).security ?? (document.security as object[]) ?? []).filter((r) => 'bearerAuth' in r)
          .length,
    );
    expect(Math.max(...bearerRequirements)).toBe(1);
    for (const { tool } of operationTools(document)) {
      expect(tool.inputSchema.type).toBe('object');
      if (tool.outputSchema) expect(tool.outputSchema.type).toBe('object');
    }
  });
});

describe('MCP over stdio (npm run mcp)', () => {
  it('relays a client to the running service with the key of a key file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-key-'));
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, `${token}\n`, { mode: 0o600 });
    const client = new Client({ name: 'wallet-pass-service-stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [resolve('bin/wallet-pass-mcp.js'), '--key-file', keyFile, '--url', `http://127.0.0.1:${listening.port}`],
        stderr: 'pipe',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('updateLoyalty');
      await issueShowAndChange(client);
    } finally {
      await client.close();
    }
  });
});
