// Tables of webhooks: endpoints, the events the outbox queued and their deliveries.

export interface WebhookEndpointsTable {
  id: string;
  user_id: string;
  url: string;
  events_json: string | null;
  description: string | null;
  secret: string;
  /** The secret the last rotation replaced; it signs too until previous_secret_expires_at_ms (0013). */
  previous_secret: string | null;
  previous_secret_expires_at_ms: bigint | null;
  lease_holder: string | null;
  lease_until_ms: bigint | null;
  /** No delivery to the endpoint before this, after a failed attempt (0013). */
  backoff_until_ms: bigint | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}

export interface WebhookEventsTable {
  id: string;
  user_id: string;
  type: string;
  data_json: string;
  created_at_ms: bigint;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: bigint;
  next_attempt_at_ms: bigint | null;
  response_status: bigint | null;
  last_error: string | null;
  created_at_ms: bigint;
  updated_at_ms: bigint;
}
