import type { OperationHandler } from '../../http/operation.ts';

/** `GET /healthz`: liveness; never touches the database. */
export const getHealth: OperationHandler<'getHealth'> = async () => ({ status: 200, body: { status: 'ok' } });
