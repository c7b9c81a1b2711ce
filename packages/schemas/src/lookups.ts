import { z } from 'zod';

export const groupV4 = z.object({ id: z.int(), name: z.string() });
export const businessCategoryV4 = z.object({ id: z.int(), name: z.string() });
