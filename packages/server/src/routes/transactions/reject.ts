import { rejectRoute } from './decision.ts';

export default rejectRoute;
