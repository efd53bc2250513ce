export type { EngramPort, PortError } from './port.js';
export { createEngramMcpServer, registerEngramTools, TOOL_LIMITS } from './tools.js';
export { CAPS, formatContents, formatRelated, formatSearch, formatSimilar } from './format.js';
