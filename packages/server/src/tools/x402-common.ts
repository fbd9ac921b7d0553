import { z } from 'zod';
import { AppError, invalid } from '../errors.ts';
import { describeIssues } from '../http/schemas.ts';
import type { FaceServices } from '../services/index.ts';
import type { X402Service } from '../services/x402/x402.ts';

/** The x402 tools exist only on the evm rail (the registry lists them only there; this is the second check). */
export function x402ServiceOf(services: FaceServices): X402Service {
  if (services.chain === null) throw new AppError('UNKNOWN_TOOL', 'x402 tools exist only on the evm rail');
  return services.chain.x402;
}

const REQUIREMENTS_MAX = 32;
const requirement = z.record(z.string(), z.unknown());
/** The shape the contract fixes: one requirement, a list of them, or the whole 402 answer ({x402Version, accepts}). */
const requirementsObject = z.union([requirement, z.array(requirement).min(1).max(REQUIREMENTS_MAX)]);

/**
 * `paymentRequirements` as the server accepts it: the object form the contract fixes, or the same as JSON text —
 * the form models are shown, since an open object is refused by OpenAI's strict mode (its every object must be
 * closed) and a 402's requirements are the seller's shape, not ours. The text is read by requirementsOf.
 */
export const paymentRequirementsParam = z.union([requirementsObject, z.string()]);

export const PAYMENT_REQUIREMENTS_TEXT =
  'what the seller’s 402 offered, as JSON text: one requirement, a list of at most 32 of them, or the whole ' +
  '402 answer ({"x402Version", "accepts", "resource"}), exactly as received';

/** The requirements as an object: JSON text is parsed and must then have the object form's shape. */
export function requirementsOf(value: z.output<typeof paymentRequirementsParam>): unknown {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid('params.paymentRequirements: not JSON text (give the 402’s requirements as JSON)');
  }
  const checked = requirementsObject.safeParse(parsed);
  if (!checked.success) throw invalid(describeIssues(checked.error.issues, 'params.paymentRequirements'));
  return checked.data;
}
