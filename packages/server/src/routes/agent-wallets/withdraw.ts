import { movementRoute } from './movement.ts';

export default movementRoute('withdraw');
