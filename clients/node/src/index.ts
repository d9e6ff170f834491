/** The package's public API: only what is exported here is public; the other modules are internal. */

export { HermesStdioClient } from './client.js';
export type { Disposable, LogLevel, ProcessExit, RequestOptions, SpawnOptions } from './types.js';
export type { ApprovalAnswer, CollectedRun, CollectRunOptions, CompressionAnswer, RunEvent } from './run-types.js';
export { HermesStdioError, CLIENT_ERROR_CODES } from './errors.js';
export type { ClientErrorType, HermesErrorData } from './errors.js';
export * from './generated/protocol.js';
