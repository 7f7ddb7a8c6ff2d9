export * from './phone.js';
export { BotPlatformError, type BotPlatformErrorKind } from './bot-platform-error.js';
export type { BotSubscriber } from './bot-subscriber.js';
export type { RetryPolicy } from './lookup-retry.js';
export { createBotPlatformClient, plannedPlatformRequests, MAX_FIELDS_PER_CALL, type BotPlatformClient, type BotPlatformClientOptions, type FieldBatchOutcome, type UserFieldValue } from './bot-platform-client.js';
export type { BotWebhookError, BotWebhookInput, BotWebhookOutcome, BotWebhookResult, FieldUpdateDetail } from './bot-webhook-types.js';
export { parseBotWebhookRequest, MAX_USER_FIELDS, type ParsedBotWebhookRequest } from './bot-webhook-request.js';
export { runBotWebhook, MIN_TIME_FOR_A_WRITE_MS, type BotWebhookOptions } from './bot-webhook.js';
export type { RequestAdmission } from './platform-transport.js';
