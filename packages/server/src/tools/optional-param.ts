// An optional tool param (contract section 4): absent, or null, which means absent — what a model in strict mode
// sends for a field it leaves out (every field listed as required, the optional ones nullable). The published
// schema says so (`type: [<the param's type>, "null"]`, model-schema.ts); the tool itself only ever sees the value
// or undefined.
import type { z } from 'zod';

export function optionalParam<T extends z.ZodType>(schema: T) {
  return schema
    .nullable()
    .transform((value): z.output<T> | undefined => value ?? undefined)
    .optional();
}
