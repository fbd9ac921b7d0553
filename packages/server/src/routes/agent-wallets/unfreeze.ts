import { freezingRoute } from './freezing.ts';

export default freezingRoute('unfreeze');
