export { HermesStdioClient } from './client.js';
export type {
  ApprovalAnswer,
  CollectedRun,
  CollectRunOptions,
  CompressionAnswer,
  Disposable,
  LogLevel,
  ProcessExit,
  RequestOptions,
  SpawnOptions,
} from './client.js';
export { HermesStdioError, CLIENT_ERROR_CODES } from './errors.js';
export type { ClientErrorType, HermesErrorData } from './errors.js';
export * from './generated/protocol.js';
