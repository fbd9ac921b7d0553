import { AppError } from '../errors.ts';
import type { Services } from '../services/index.ts';
import type { X402Service } from '../services/x402.ts';

/** The x402 tools exist only on the evm rail (the registry lists them only there; this is the second check). */
export function x402ServiceOf(services: Services): X402Service {
  if (services.chain === null) throw new AppError('UNKNOWN_TOOL', 'x402 tools exist only on the evm rail');
  return services.chain.x402;
}
