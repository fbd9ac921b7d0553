export async function runStdioBridge(_env: NodeJS.ProcessEnv): Promise<number> {
  throw new Error('the MCP stdio bridge is not built yet');
}
