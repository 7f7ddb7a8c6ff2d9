/** SPEC "Bot webhook request and result". */
export interface BotWebhookInput {
  phone_number: string;
  /** The sub flow namespace (`f<bot>s<id>`) the platform calls `sub_flow_ns`. */
  flow_ns: string;
  user_fields?: Record<string, string>;
}

export interface FieldUpdateDetail {
  field: string;
  /** `updated` or `failed: <reason>`. */
  status: string;
}

/** Body of a 200 or 206; the gateway adds `request_id`. */
export interface BotWebhookResult {
  user_ns_retrieval: { success: boolean; message: string; user_ns: string };
  custom_fields_update: { success: boolean; message: string; details: FieldUpdateDetail[] };
  flow_sent: { success: boolean; message: string };
}

/** Error body; the gateway adds `request_id`. */
export interface BotWebhookError {
  error: string;
  details?: string[];
}

export type BotWebhookOutcome =
  | { httpStatus: 200 | 206; body: BotWebhookResult }
  | { httpStatus: 401 | 404 | 500; body: BotWebhookError };
