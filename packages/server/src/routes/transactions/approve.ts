import { approveRoute } from './decision.ts';

export default approveRoute;
