export type ClientOptions = {
    baseUrl: string;
};
/**
 * AcceptedOut
 */
export type AcceptedOut = {
    /**
     * Count
     */
    count?: number | null;
    /**
     * Status
     */
    status?: 'accepted';
};
/**
 * AccessDenyIn
 */
export type AccessDenyIn = {
    /**
     * Note
     *
     * why not, shown to the user (1–1,000 characters)
     */
    note: string;
};
/**
 * AccessRequestIn
 */
export type AccessRequestIn = {
    /**
     * Reason
     *
     * why the user needs it (1–1,000 characters)
     */
    reason: string;
    /**
     * Server
     *
     * a registered server the policy does not allow yet
     */
    server: string;
    /**
     * User
     *
     * the user's external_id
     */
    user: string;
};
/**
 * AccessRequestOut
 */
export type AccessRequestOut = {
    /**
     * Consent Request Id
     *
     * the consent request the user was sent once approved
     */
    consent_request_id: string | null;
    /**
     * Created At
     */
    created_at: string;
    /**
     * Decided At
     */
    decided_at: string | null;
    /**
     * Decided By
     *
     * who answered (staff's email, or the API key)
     */
    decided_by: string | null;
    /**
     * Id
     */
    id: string;
    /**
     * Note
     *
     * staff's note when denied
     */
    note: string | null;
    /**
     * Reason
     */
    reason: string;
    /**
     * Server
     */
    server: string;
    /**
     * Status
     */
    status: 'pending' | 'approved' | 'denied';
    /**
     * User
     *
     * the user's external_id
     */
    user: string;
};
/**
 * AccessRequestPage
 */
export type AccessRequestPage = {
    /**
     * Items
     */
    items: Array<AccessRequestOut>;
    /**
     * Next Cursor
     */
    next_cursor: string | null;
};
/**
 * ActorOut
 */
export type ActorOut = {
    /**
     * Id
     */
    id: string;
    /**
     * Kind
     */
    kind: string;
    /**
     * Label
     */
    label: string;
    /**
     * On Behalf Of
     */
    on_behalf_of?: string | null;
};
/**
 * AsOfLedgerOut
 */
export type AsOfLedgerOut = {
    /**
     * the first signed checkpoint whose tree holds that leaf (tree_size > leaf_index), as GET /audit/checkpoint gives one: keep it to check the entries later with the proof endpoints or switchboard-verify; null when none holds it (see reason)
     */
    checkpoint: CheckpointOut | null;
    /**
     * Entry
     *
     * the newest ledger entry the answer replays (null: nothing was recorded for the user by then)
     */
    entry: string | null;
    /**
     * Leaf Index
     *
     * that entry's leaf in the host's transparency log; the leaves follow the entries' order, so every entry the answer replays is at or before it
     */
    leaf_index: number | null;
    /**
     * Reason
     *
     * why checkpoint is null: no_entries (nothing to cover), not_signed_yet (the next checkpoint, within AUDIT_CHECKPOINT_INTERVAL, will hold it); null when there is a checkpoint
     */
    reason: 'no_entries' | 'not_signed_yet' | null;
};
/**
 * AttemptOut
 */
export type AttemptOut = {
    /**
     * At
     */
    at: string;
    /**
     * Duration Ms
     */
    duration_ms: number;
    /**
     * Error Category
     */
    error_category: string | null;
    /**
     * Status Code
     */
    status_code: number | null;
};
/**
 * AuditEntryOut
 */
export type AuditEntryOut = {
    actor: ActorOut;
    /**
     * At
     */
    at: string;
    /**
     * Content Hash
     */
    content_hash: string;
    /**
     * Detail
     */
    detail: {
        [key: string]: unknown;
    };
    /**
     * Hashed
     */
    hashed: {
        [key: string]: unknown;
    };
    /**
     * Id
     */
    id: string;
    /**
     * Kind
     */
    kind: string;
    /**
     * Leaf Index
     */
    leaf_index?: number | null;
    /**
     * Server
     */
    server?: string | null;
    /**
     * Subject
     */
    subject?: {
        [key: string]: string;
    } | null;
    /**
     * Summary
     */
    summary: string;
    /**
     * User
     */
    user?: string | null;
};
/**
 * AuditFilter
 */
export type AuditFilter = {
    /**
     * Kind
     */
    kind?: string | null;
    /**
     * Server
     */
    server?: string | null;
    /**
     * Since
     */
    since?: string | null;
    /**
     * Until
     */
    until?: string | null;
    /**
     * User
     */
    user?: string | null;
};
/**
 * AuditPage
 */
export type AuditPage = {
    /**
     * Items
     */
    items: Array<AuditEntryOut>;
    /**
     * Next Cursor
     */
    next_cursor: string | null;
};
/**
 * BlockOut
 *
 * What the kill switch stopped (zero for an unblock: it restores nothing).
 */
export type BlockOut = {
    /**
     * Blocked
     */
    blocked: boolean;
    /**
     * Grants Suspended
     */
    grants_suspended: number;
    /**
     * Subscriptions Revoked
     */
    subscriptions_revoked: number;
};
/**
 * BrokenOut
 */
export type BrokenOut = {
    /**
     * Checkpoint
     */
    checkpoint?: number | null;
    /**
     * Id
     */
    id?: number | null;
    /**
     * Leaf Index
     */
    leaf_index?: number | null;
    /**
     * Reason
     */
    reason: string;
};
/**
 * ChannelIn
 *
 * Realtime (default), a cron digest, or one scheduled digest.
 */
export type ChannelIn = {
    /**
     * Deliver At
     *
     * scheduled: when (in the future)
     */
    deliver_at?: string | null;
    /**
     * Expire After
     *
     * scheduled: revoke after it (true)
     */
    expire_after?: boolean | null;
    /**
     * Expression
     *
     * cron: `0 9 * * *`
     */
    expression?: string | null;
    /**
     * Max Events
     *
     * cron: events per digest (1-1000; 100)
     */
    max_events?: number | null;
    /**
     * Timezone
     *
     * cron: an IANA zone; UTC
     */
    timezone?: string | null;
    /**
     * Type
     */
    type?: 'realtime' | 'cron' | 'scheduled';
};
/**
 * CheckpointKeyOut
 */
export type CheckpointKeyOut = {
    /**
     * Key Id
     */
    key_id: string;
    /**
     * Name
     */
    name: string;
    /**
     * Public Key
     */
    public_key: string;
    /**
     * Vkey
     */
    vkey: string;
};
/**
 * CheckpointOut
 */
export type CheckpointOut = {
    key: CheckpointKeyOut;
    /**
     * Note
     */
    note: string;
    /**
     * Origin
     */
    origin: string;
    /**
     * Root Hash
     */
    root_hash: string;
    /**
     * Tree Size
     */
    tree_size: number;
};
/**
 * ConsentCheckIn
 */
export type ConsentCheckIn = {
    /**
     * Event Type
     */
    event_type?: string | null;
    /**
     * Hook Id
     */
    hook_id?: string | null;
    /**
     * Scope
     */
    scope: string;
    /**
     * Server
     */
    server: string;
    /**
     * User
     */
    user: string;
};
/**
 * ConsentCheckOut
 */
export type ConsentCheckOut = {
    /**
     * Allowed
     */
    allowed: boolean;
    /**
     * Grant Id
     */
    grant_id?: string | null;
    /**
     * Reason
     *
     * active_grant, no_consent, not_approved_for_this_item, denied_by_policy
     */
    reason: string;
    /**
     * Source
     *
     * who allowed it, when allowed: the user, or an organisation grant
     */
    source?: 'user' | 'organisation' | null;
};
/**
 * ConsentRequestCreated
 */
export type ConsentRequestCreated = {
    /**
     * Consent Url
     *
     * A console page. Send the user there through a login link: POST /api/v1/users/{external_id}/login-links {"next": "<path of consent_url>"}
     */
    consent_url: string;
    /**
     * Expires At
     */
    expires_at: string;
    /**
     * Id
     */
    id: string;
    /**
     * Status
     */
    status: string;
};
/**
 * ConsentRequestIn
 */
export type ConsentRequestIn = {
    /**
     * Event Types
     *
     * for the events scope; all the server offers when left out
     */
    event_types?: Array<string> | null;
    /**
     * Handlers
     *
     * MCPE servers, events scope: the agent handlers ({type: agent, systemPrompt?, instructions?, model?, tools?}) subscriptions would run, shown to the user; a subscription may carry one only under a grant that showed it
     */
    handlers?: Array<{
        [key: string]: unknown;
    }> | null;
    /**
     * Return Url
     *
     * where the consent page sends the user back: a registered origin or a path
     */
    return_url?: string | null;
    /**
     * Scopes
     *
     * conversation:read, hooks, events
     */
    scopes: Array<string>;
    /**
     * Server
     */
    server: string;
    /**
     * User
     *
     * the user's external_id
     */
    user: string;
};
/**
 * ConsentRequestOut
 */
export type ConsentRequestOut = {
    /**
     * Consent Url
     */
    consent_url: string;
    /**
     * Decided At
     */
    decided_at: string | null;
    /**
     * Event Types
     */
    event_types: Array<string>;
    /**
     * Expires At
     */
    expires_at: string;
    /**
     * Grants
     */
    grants: Array<GrantOut>;
    /**
     * Id
     */
    id: string;
    /**
     * Origin
     *
     * host, or declarations_changed when we asked again
     */
    origin: string;
    /**
     * Return Url
     */
    return_url: string;
    /**
     * Scopes
     */
    scopes: Array<string>;
    /**
     * Server
     */
    server: string;
    /**
     * Status
     */
    status: 'pending' | 'approved' | 'denied' | 'partially_approved' | 'expired';
    /**
     * User
     */
    user: string;
};
/**
 * ConsistencyOut
 */
export type ConsistencyOut = {
    /**
     * Hashes
     */
    hashes: Array<string>;
};
/**
 * ConsistencyQuery
 */
export type ConsistencyQuery = {
    /**
     * From
     */
    from: number;
    /**
     * To
     */
    to: number;
};
/**
 * CredentialsIn
 */
export type CredentialsIn = {
    /**
     * Headers
     */
    headers: {
        [key: string]: string;
    };
};
/**
 * DeliveryOut
 */
export type DeliveryOut = {
    /**
     * Attempts
     */
    attempts: Array<AttemptOut>;
    /**
     * Created At
     */
    created_at: string;
    /**
     * Id
     */
    id: string;
    /**
     * Next Attempt At
     */
    next_attempt_at: string | null;
    /**
     * Status
     */
    status: string;
    /**
     * Subscription Id
     */
    subscription_id: string | null;
    /**
     * Type
     */
    type: string;
    /**
     * Webhook Id
     */
    webhook_id: string;
};
/**
 * DeliveryPage
 */
export type DeliveryPage = {
    /**
     * Items
     */
    items: Array<DeliveryOut>;
    /**
     * Next Cursor
     */
    next_cursor: string | null;
};
/**
 * DrainCreatedOut
 */
export type DrainCreatedOut = {
    /**
     * Format
     */
    format: string;
    /**
     * Secret
     */
    secret: string;
    /**
     * Url
     */
    url: string;
};
/**
 * DrainIn
 */
export type DrainIn = {
    /**
     * Format
     */
    format: 'jsonl' | 'ocsf';
    /**
     * Url
     */
    url: string;
};
/**
 * DrainOut
 */
export type DrainOut = {
    /**
     * Format
     */
    format: string;
    /**
     * Lag Seconds
     */
    lag_seconds: number;
    /**
     * Last Delivered Id
     */
    last_delivered_id: string;
    /**
     * Last Error
     */
    last_error?: string | null;
    /**
     * Status
     */
    status: string;
    /**
     * Url
     */
    url: string;
};
/**
 * EndpointCreatedOut
 */
export type EndpointCreatedOut = {
    /**
     * Secret
     *
     * Shown once; the previous secret keeps verifying for 24 h
     */
    secret: string;
    /**
     * Url
     */
    url: string;
};
/**
 * EndpointIn
 */
export type EndpointIn = {
    /**
     * Url
     */
    url: string;
};
/**
 * EndpointOut
 */
export type EndpointOut = {
    /**
     * Disabled Reason
     */
    disabled_reason: string | null;
    /**
     * Last Failure At
     */
    last_failure_at: string | null;
    /**
     * Last Success At
     */
    last_success_at: string | null;
    /**
     * Status
     */
    status: string;
    /**
     * Url
     */
    url: string;
};
/**
 * ErrorBody
 */
export type ErrorBody = {
    /**
     * Code
     */
    code: string;
    /**
     * Field
     */
    field?: string | null;
    /**
     * Message
     */
    message: string;
};
/**
 * ErrorOut
 */
export type ErrorOut = {
    error: ErrorBody;
};
/**
 * EventSourceIn
 *
 * A task's ``eventSource`` exactly as the server's ``CreateTaskResult`` has it.
 */
export type EventSourceIn = {
    /**
     * Initialcursor
     *
     * Where the subscription starts; null = from now
     */
    initialCursor?: string | null;
    /**
     * Input
     *
     * Becomes the subscription's arguments (inputSchema applies)
     */
    input?: {
        [key: string]: unknown;
    } | null;
    /**
     * Name
     *
     * The event type
     */
    name: string;
};
/**
 * EventTypeOut
 */
export type EventTypeOut = {
    /**
     * Delivery
     */
    delivery: Array<string>;
    /**
     * Description
     */
    description: string;
    /**
     * Input Schema
     */
    input_schema: {
        [key: string]: unknown;
    };
    /**
     * Name
     */
    name: string;
    /**
     * Payload Schema
     */
    payload_schema: {
        [key: string]: unknown;
    };
};
/**
 * FilterIn
 *
 * Every given field must match (AND); tags match if any does.
 */
export type FilterIn = {
    /**
     * Event Types
     *
     * Exact names or prefix patterns: `github.*`, `*`
     */
    event_types?: Array<string> | null;
    /**
     * Priority
     *
     * An event without a priority counts as normal
     */
    priority?: Array<'low' | 'normal' | 'high' | 'critical'> | null;
    /**
     * Tags
     */
    tags?: Array<string> | null;
};
/**
 * GrantOut
 */
export type GrantOut = {
    /**
     * Approved Event Types
     */
    approved_event_types: Array<string>;
    /**
     * Approved Hooks
     */
    approved_hooks: Array<string>;
    /**
     * Channel
     *
     * browser; staff when staff decided on the user's behalf; organisation when an organisation grant gave it
     */
    channel: string;
    /**
     * Declaration Hash
     *
     * SHA-256 of the declarations the user was shown
     */
    declaration_hash: string;
    /**
     * Expires At
     */
    expires_at: string | null;
    /**
     * Granted At
     */
    granted_at: string | null;
    /**
     * Id
     */
    id: string;
    /**
     * Identity
     */
    identity: string;
    /**
     * Org Grant Id
     *
     * the organisation grant that gave it (source organisation)
     */
    org_grant_id?: string | null;
    /**
     * Revoked At
     */
    revoked_at: string | null;
    /**
     * Scope
     */
    scope: string;
    /**
     * Server
     */
    server: string;
    /**
     * Source
     *
     * user: the user allowed it; organisation: an organisation grant did
     */
    source: 'user' | 'organisation';
    /**
     * Status
     */
    status: string;
};
/**
 * GrantPage
 */
export type GrantPage = {
    /**
     * Items
     */
    items: Array<GrantOut>;
    /**
     * with at only (null otherwise): where in the host's transparency log the answer is read, and the signed checkpoint that covers it
     */
    ledger?: AsOfLedgerOut | null;
    /**
     * Next Cursor
     */
    next_cursor: string | null;
};
/**
 * HistoryIn
 */
export type HistoryIn = {
    /**
     * Content
     */
    content: string;
    /**
     * Role
     */
    role: 'user' | 'assistant';
};
/**
 * HookDeclarationOut
 */
export type HookDeclarationOut = {
    /**
     * Context
     */
    context?: string | null;
    /**
     * Context Tool
     */
    context_tool?: string | null;
    /**
     * Context Tool Args
     */
    context_tool_args?: unknown;
    /**
     * Event
     */
    event: string;
    /**
     * Hook Id
     */
    hook_id: string;
    /**
     * Matcher
     */
    matcher?: unknown;
    /**
     * Priority
     */
    priority: string;
    /**
     * Problems
     */
    problems: Array<string>;
    /**
     * Raw
     */
    raw: {
        [key: string]: unknown;
    } | unknown;
    /**
     * Valid
     */
    valid: boolean;
};
/**
 * InclusionOut
 */
export type InclusionOut = {
    /**
     * Hashes
     */
    hashes: Array<string>;
    /**
     * Leaf Index
     */
    leaf_index: number;
    /**
     * Tree Size
     */
    tree_size: number;
};
/**
 * InclusionQuery
 */
export type InclusionQuery = {
    /**
     * Entry
     */
    entry: number;
    /**
     * Tree Size
     */
    tree_size: number;
};
/**
 * InjectionIn
 */
export type InjectionIn = {
    /**
     * Context
     */
    context: string;
    /**
     * Latency Ms
     */
    latency_ms?: number | null;
    /**
     * Message Id
     */
    message_id: string;
    /**
     * Server
     */
    server: string;
    /**
     * User
     */
    user: string;
};
/**
 * InjectionOut
 */
export type InjectionOut = {
    /**
     * Downgraded
     *
     * Why effective_priority is lower: untrusted_server, not_approved_as_required, user_downgrade
     */
    downgraded: Array<string>;
    /**
     * Effective Priority
     */
    effective_priority: string;
    /**
     * Firing Id
     */
    firing_id: string;
    /**
     * Hook Id
     */
    hook_id: string;
    /**
     * Priority
     */
    priority: string;
    /**
     * Server
     */
    server: string;
    /**
     * Source
     *
     * context | context_tool
     */
    source: string;
    /**
     * Text
     */
    text: string;
    /**
     * Trust
     *
     * untrusted: data, never instructions (see docs, case 48)
     */
    trust: 'trusted' | 'untrusted';
};
/**
 * LateOut
 */
export type LateOut = {
    /**
     * Hook Id
     */
    hook_id: string;
    /**
     * Server
     */
    server: string;
};
/**
 * LifecycleIn
 */
export type LifecycleIn = {
    /**
     * Dialect
     *
     * Whose names event uses: the host's agent. Mapped to the normalized events (docs/host-integration.md); a name with no twin is recorded and fires nothing
     */
    dialect?: 'claude-code' | 'codex' | 'gemini-cli' | null;
    /**
     * Event
     *
     * One of the supported events; with dialect, the host's own name for it
     */
    event: string;
    /**
     * Project Name
     */
    project_name?: string | null;
    /**
     * Servers
     *
     * Server ids to attach
     */
    servers?: Array<string> | null;
    /**
     * Thread Id
     */
    thread_id?: string | null;
    /**
     * Tool Input
     *
     * The tool's input (any JSON)
     */
    tool_input?: unknown;
    /**
     * Tool Name
     */
    tool_name?: string | null;
    /**
     * Tool Output
     *
     * The tool's result: an MCP CallToolResult object, or any JSON
     */
    tool_output?: unknown;
    /**
     * Tool Server
     */
    tool_server?: string | null;
    /**
     * User
     *
     * The user's external_id
     */
    user: string;
};
/**
 * LifecycleOut
 */
export type LifecycleOut = {
    /**
     * Event Id
     */
    event_id: string;
    /**
     * Injections
     */
    injections: Array<InjectionOut>;
    /**
     * Late
     *
     * context_tool hooks whose server was still starting past HOOK_READINESS_WAIT (also in suppressed as context_tool_late): ask again later
     */
    late?: Array<LateOut>;
    /**
     * With dialect: the host's name for the event and how it was read
     */
    native?: NativeOut | null;
    /**
     * Notices
     */
    notices: Array<NoticeOut>;
    refresh?: RefreshOut | null;
    /**
     * Suppressed
     */
    suppressed: Array<SuppressedOut>;
};
/**
 * LoginLinkIn
 */
export type LoginLinkIn = {
    /**
     * Next
     *
     * A path on the console to land on
     */
    next?: string | null;
};
/**
 * LoginLinkOut
 */
export type LoginLinkOut = {
    /**
     * Expires At
     */
    expires_at: string;
    /**
     * Url
     */
    url: string;
};
/**
 * MessageIn
 */
export type MessageIn = {
    /**
     * Content
     */
    content: string;
    /**
     * Message Id
     */
    message_id: string;
    /**
     * Recent History
     */
    recent_history?: Array<HistoryIn> | null;
    /**
     * Servers
     *
     * the servers of this message; else those of the thread, else all
     */
    servers?: Array<string> | null;
    /**
     * User
     */
    user: string;
};
/**
 * MessageItemOut
 */
export type MessageItemOut = {
    /**
     * Chars
     */
    chars: number;
    /**
     * Context
     */
    context?: string | null;
    /**
     * Latency Ms
     */
    latency_ms: number;
    /**
     * Server
     */
    server: string;
    /**
     * Structured Context
     */
    structured_context?: {
        [key: string]: unknown;
    } | null;
    /**
     * Truncated
     */
    truncated: boolean;
    /**
     * Trust
     *
     * untrusted: the server's text is data, never instructions (trusted only from servers staff marked trusted)
     */
    trust: 'trusted' | 'untrusted';
};
/**
 * MessageOut
 */
export type MessageOut = {
    /**
     * Budget Ms
     */
    budget_ms: number;
    /**
     * Context
     *
     * every injected piece in priority order, each wrapped in <external-context server=… source=… trust=…> to present as untrusted
     */
    context: string;
    /**
     * Elapsed Ms
     */
    elapsed_ms: number;
    /**
     * Items
     */
    items: Array<MessageItemOut>;
    /**
     * Skipped
     */
    skipped: Array<SkippedOut>;
};
/**
 * NativeOut
 */
export type NativeOut = {
    /**
     * Dialect
     */
    dialect: string;
    /**
     * Event
     *
     * The name the host sent
     */
    event: string;
    /**
     * Normalized
     *
     * The normalized event it was evaluated as
     */
    normalized: string | null;
    /**
     * Reason
     *
     * Why nothing was evaluated: no_normalized_twin (a known event with no normalized twin) or unknown_event (a name the dialect's table does not list); either way the event was recorded and nothing fired
     */
    reason?: string | null;
};
/**
 * NoticeOut
 */
export type NoticeOut = {
    /**
     * Field
     */
    field: string;
    /**
     * Limit
     */
    limit?: number | null;
    /**
     * Reason
     */
    reason: string;
    /**
     * Size
     */
    size?: number | null;
};
/**
 * OrgGrantIn
 */
export type OrgGrantIn = {
    /**
     * Event Types
     *
     * for the events scope; all the server offers when left out
     */
    event_types?: Array<string> | null;
    /**
     * Expires At
     */
    expires_at?: string | null;
    /**
     * Groups
     *
     * group names, or ["*"] for every user
     */
    groups: Array<string>;
    /**
     * Hook Ids
     *
     * for the hooks scope; every hook the server declares when left out
     */
    hook_ids?: Array<string> | null;
    /**
     * Scopes
     *
     * conversation:read, hooks, events
     */
    scopes: Array<string>;
    /**
     * Server
     */
    server: string;
    /**
     * User Can Revoke
     */
    user_can_revoke: boolean;
};
/**
 * OrgGrantOut
 */
export type OrgGrantOut = {
    /**
     * Created At
     */
    created_at: string;
    /**
     * Created By
     *
     * the staff member's email, or the API key's label
     */
    created_by: string;
    /**
     * Ended At
     */
    ended_at?: string | null;
    /**
     * Ended By
     */
    ended_by?: string | null;
    /**
     * Event Types
     */
    event_types: Array<string>;
    /**
     * Expires At
     */
    expires_at: string | null;
    /**
     * Groups
     */
    groups: Array<string>;
    /**
     * Hook Ids
     */
    hook_ids: Array<string>;
    /**
     * Id
     */
    id: string;
    /**
     * Scopes
     */
    scopes: Array<string>;
    /**
     * Server
     */
    server: string;
    /**
     * Status
     *
     * active, suspended (the server changed), expired, ended
     */
    status: string;
    /**
     * User Can Revoke
     */
    user_can_revoke: boolean;
};
/**
 * OrgGrantPage
 */
export type OrgGrantPage = {
    /**
     * Items
     */
    items: Array<OrgGrantOut>;
};
/**
 * PolicyIn
 *
 * Fields sent are changed; fields left out keep their value. A server
 * the new list denies is blocked as by the kill switch.
 */
export type PolicyIn = {
    /**
     * Context Tools Trusted Only
     */
    context_tools_trusted_only?: boolean | null;
    /**
     * Conversation Budget Ms
     */
    conversation_budget_ms?: number | null;
    /**
     * Listed Server Ids
     */
    listed_server_ids?: Array<string> | null;
    /**
     * Max Chars Per Message
     */
    max_chars_per_message?: number | null;
    /**
     * Max Chars Per Server
     */
    max_chars_per_server?: number | null;
    /**
     * Required Hooks Trusted Only
     */
    required_hooks_trusted_only?: boolean | null;
    /**
     * Server List Mode
     */
    server_list_mode?: 'off' | 'allow' | 'deny' | null;
};
/**
 * PolicyOut
 *
 * The host's organisation policy (one per host).
 */
export type PolicyOut = {
    /**
     * Context Tools Trusted Only
     *
     * servers not marked trusted fire only static context hooks (no context_tool calls)
     */
    context_tools_trusted_only: boolean;
    /**
     * Conversation Budget Ms
     */
    conversation_budget_ms: number;
    /**
     * Listed Server Ids
     */
    listed_server_ids: Array<string>;
    /**
     * Max Chars Per Message
     */
    max_chars_per_message: number;
    /**
     * Max Chars Per Server
     */
    max_chars_per_server: number;
    /**
     * Required Hooks Trusted Only
     */
    required_hooks_trusted_only: boolean;
    /**
     * Server List Mode
     *
     * off: every server may ask; allow: only the listed ones; deny: all but the listed ones
     */
    server_list_mode: 'off' | 'allow' | 'deny';
    /**
     * Updated At
     */
    updated_at?: string | null;
};
/**
 * PollOut
 *
 * Poll mode: when the console polls next and when it last did.
 */
export type PollOut = {
    /**
     * Last Polled At
     */
    last_polled_at: string | null;
    /**
     * Next Poll At
     */
    next_poll_at: string | null;
};
/**
 * PulledItem
 */
export type PulledItem = {
    /**
     * Data
     */
    data: {
        [key: string]: unknown;
    };
    /**
     * Timestamp
     */
    timestamp: string;
    /**
     * Type
     */
    type: string;
    /**
     * Webhook Id
     */
    webhook_id: string;
};
/**
 * PulledPage
 */
export type PulledPage = {
    /**
     * Items
     */
    items: Array<PulledItem>;
    /**
     * Next After
     */
    next_after: string | null;
};
/**
 * RecoverIn
 */
export type RecoverIn = {
    /**
     * Since
     */
    since: string;
};
/**
 * RefreshOut
 */
export type RefreshOut = {
    /**
     * Reason
     */
    reason?: string | null;
    /**
     * Retry After
     */
    retry_after?: number | null;
    /**
     * Status
     *
     * scheduled | coalesced | rate_limited | refused
     */
    status: string;
    /**
     * Thread Id
     */
    thread_id: string;
};
/**
 * RevokedOut
 */
export type RevokedOut = {
    /**
     * Id
     */
    id: string;
    /**
     * Status
     */
    status: string;
    unsubscribe?: UnsubscribeOut | null;
};
/**
 * ScimOut
 */
export type ScimOut = {
    /**
     * Enabled
     */
    enabled: boolean;
    /**
     * Token Hint
     */
    token_hint: string | null;
};
/**
 * ScimTokenOut
 */
export type ScimTokenOut = {
    /**
     * Token
     */
    token: string;
};
/**
 * ServerIn
 */
export type ServerIn = {
    /**
     * Capabilities
     */
    capabilities?: {
        [key: string]: unknown;
    } | null;
    /**
     * Headers
     */
    headers?: {
        [key: string]: string;
    } | null;
    /**
     * Name
     */
    name: string;
    /**
     * Trust
     */
    trust?: 'trusted' | 'untrusted';
    /**
     * Url
     */
    url?: string | null;
};
/**
 * ServerOut
 */
export type ServerOut = {
    /**
     * Blocked At
     *
     * set while the kill switch blocks the server
     */
    blocked_at?: unknown;
    /**
     * Capabilities
     */
    capabilities: {
        [key: string]: unknown;
    };
    /**
     * Capability Sources
     */
    capability_sources: {
        [key: string]: string;
    };
    /**
     * Conversation Events
     */
    conversation_events: boolean;
    /**
     * Created At
     */
    created_at?: unknown;
    /**
     * Event Types
     */
    event_types: Array<EventTypeOut>;
    /**
     * Events Dialect
     *
     * auto, or the dialect staff chose
     */
    events_dialect: string;
    /**
     * Events Enforce Identity
     */
    events_enforce_identity: boolean;
    /**
     * Hook Declarations
     */
    hook_declarations: Array<HookDeclarationOut>;
    /**
     * Id
     */
    id: string;
    /**
     * Last Error
     */
    last_error: string | null;
    /**
     * Last Synced At
     */
    last_synced_at?: unknown;
    /**
     * Name
     */
    name: string;
    /**
     * Priority
     */
    priority: number;
    /**
     * Protocol Version
     */
    protocol_version: string;
    /**
     * Status
     */
    status: string;
    /**
     * Trust
     */
    trust: string;
    /**
     * Url
     */
    url: string;
};
/**
 * ServerPage
 */
export type ServerPage = {
    /**
     * Items
     */
    items: Array<ServerOut>;
    /**
     * Next Cursor
     */
    next_cursor: string | null;
};
/**
 * ServerPatch
 */
export type ServerPatch = {
    /**
     * Events Dialect
     *
     * Which events dialect to speak; auto = detected
     */
    events_dialect?: 'auto' | 'sep-3415' | 'chatgpt' | null;
    /**
     * Events Enforce Identity
     *
     * Require the server's ed25519 (v1a) signature, by a key it publishes at /.well-known/mcp-webhook-jwks.json, on every delivery
     */
    events_enforce_identity?: boolean | null;
    /**
     * Headers
     */
    headers?: {
        [key: string]: string;
    } | null;
    /**
     * Name
     */
    name?: string | null;
    /**
     * Priority
     */
    priority?: number | null;
    /**
     * Trust
     */
    trust?: 'trusted' | 'untrusted' | null;
    /**
     * Url
     *
     * where the server is reached; a new url (or other header names) suspends its users' consent until they approve it again
     */
    url?: string | null;
};
/**
 * SkippedOut
 */
export type SkippedOut = {
    /**
     * Detail
     *
     * for disabled: blocked, host_policy, timeouts, host_managed; for no_consent: consent_unavailable when consent could not be read (nothing was sent)
     */
    detail?: string | null;
    /**
     * Reason
     */
    reason: 'no_consent' | 'not_supported' | 'timeout' | 'error' | 'disabled' | 'over_budget';
    /**
     * Server
     */
    server: string;
};
/**
 * SsoIn
 */
export type SsoIn = {
    /**
     * Admin Values
     */
    admin_values?: Array<string>;
    /**
     * Auditor Values
     */
    auditor_values?: Array<string>;
    /**
     * Client Id
     */
    client_id: string;
    /**
     * Client Secret
     */
    client_secret: string;
    /**
     * Email Domains
     */
    email_domains: Array<string>;
    /**
     * Enabled
     */
    enabled?: boolean;
    /**
     * Issuer
     */
    issuer: string;
    /**
     * Role Claim
     */
    role_claim?: string;
};
/**
 * SsoOut
 */
export type SsoOut = {
    /**
     * Admin Values
     */
    admin_values: Array<string>;
    /**
     * Auditor Values
     */
    auditor_values: Array<string>;
    /**
     * Client Id
     */
    client_id: string;
    /**
     * Email Domains
     */
    email_domains: Array<string>;
    /**
     * Enabled
     */
    enabled: boolean;
    /**
     * Issuer
     */
    issuer: string;
    /**
     * Redirect Uri
     */
    redirect_uri: string;
    /**
     * Role Claim
     */
    role_claim: string;
    scim: ScimOut;
};
/**
 * StreamOut
 *
 * Push mode: the ``events/stream`` the session worker holds for it.
 */
export type StreamOut = {
    /**
     * Connected Since
     */
    connected_since: string | null;
    /**
     * Held By
     *
     * The session worker holding it
     */
    held_by?: string | null;
    /**
     * Last Error
     */
    last_error: string | null;
    /**
     * Last Frame At
     *
     * Last event or heartbeat seen
     */
    last_frame_at?: string | null;
    /**
     * Reconnects
     */
    reconnects: number;
    /**
     * State
     */
    state: 'connecting' | 'connected' | 'waiting' | 'ended';
};
/**
 * SubscriptionIn
 */
export type SubscriptionIn = {
    /**
     * Arguments
     *
     * Validated against the event type's inputSchema
     */
    arguments?: {
        [key: string]: unknown;
    } | null;
    /**
     * How the host receives the events
     */
    channel?: ChannelIn | null;
    /**
     * Delivery
     */
    delivery?: 'auto' | 'webhook' | 'push' | 'poll';
    /**
     * Event
     *
     * An event type the server offers; left out for an MCPE server (the filter says)
     */
    event?: string | null;
    /**
     * Expires At
     *
     * Revoked at this time
     */
    expires_at?: string | null;
    /**
     * Applied before forwarding; what it holds back is counted, not sent
     */
    filter?: FilterIn | null;
    /**
     * Handler
     *
     * MCPE only: {type: bash|agent|webhook, ...} as the proposal defines it, passed to the server when the host's policy allows that type
     */
    handler?: {
        [key: string]: unknown;
    } | null;
    /**
     * Max Age Ms
     *
     * Replay floor after a lapse
     */
    max_age_ms?: number | null;
    /**
     * Server
     *
     * A server id of this host
     */
    server: string;
    /**
     * Ttl Ms
     *
     * Suggested lifetime; absent = the console's default, null = ask for no expiry
     */
    ttl_ms?: number | null;
    /**
     * User
     *
     * The user's external_id
     */
    user: string;
};
/**
 * SubscriptionOut
 */
export type SubscriptionOut = {
    /**
     * Arguments
     */
    arguments: {
        [key: string]: unknown;
    };
    /**
     * Channel
     *
     * {"type": "realtime"} or the digest schedule
     */
    channel: {
        [key: string]: unknown;
    };
    /**
     * Created At
     */
    created_at: string;
    /**
     * Cursor
     */
    cursor: string | null;
    /**
     * Delivery Status
     */
    delivery_status: {
        [key: string]: unknown;
    } | null;
    /**
     * Event
     */
    event: string | null;
    /**
     * Expires At
     */
    expires_at: string | null;
    /**
     * Filter
     *
     * {} when none
     */
    filter: {
        [key: string]: Array<string>;
    };
    /**
     * Filtered Count
     *
     * Events the filter held back
     */
    filtered_count: number;
    /**
     * Handler
     *
     * MCPE: the handler passed on
     */
    handler?: {
        [key: string]: unknown;
    } | null;
    /**
     * Id
     */
    id: string;
    /**
     * Last Error
     */
    last_error: string | null;
    /**
     * Last Error Message
     */
    last_error_message: string | null;
    /**
     * Last Event At
     */
    last_event_at: string | null;
    /**
     * Mode
     */
    mode: string;
    /**
     * Next Digest At
     *
     * Digest channels: the next one
     */
    next_digest_at?: string | null;
    /**
     * Next Refresh At
     */
    next_refresh_at: string | null;
    /**
     * Paused
     */
    paused: boolean;
    /**
     * Poll mode only
     */
    poll?: PollOut | null;
    /**
     * Refresh Before
     */
    refresh_before: string | null;
    /**
     * Remote Id
     *
     * The server's id for it, once it answered
     */
    remote_id?: string | null;
    /**
     * Server
     */
    server: string;
    /**
     * Status
     */
    status: string;
    /**
     * Push mode only, once a worker took it
     */
    stream?: StreamOut | null;
    /**
     * Truncated
     */
    truncated: boolean;
    /**
     * Set once we ended a subscription the server held
     */
    unsubscribe?: UnsubscribeOut | null;
    /**
     * User
     */
    user: string;
};
/**
 * SubscriptionPage
 */
export type SubscriptionPage = {
    /**
     * Items
     */
    items: Array<SubscriptionOut>;
    /**
     * Next Cursor
     */
    next_cursor: string | null;
};
/**
 * SubscriptionPatch
 *
 * Only the fields given change; null clears.
 */
export type SubscriptionPatch = {
    channel?: ChannelIn | null;
    /**
     * Expires At
     */
    expires_at?: string | null;
    filter?: FilterIn | null;
};
/**
 * SupportedEventsOut
 */
export type SupportedEventsOut = {
    /**
     * Supported Events
     */
    supported_events: Array<string>;
};
/**
 * SuppressedOut
 */
export type SuppressedOut = {
    /**
     * Detail
     */
    detail?: {
        [key: string]: unknown;
    };
    /**
     * Hook Id
     */
    hook_id: string;
    /**
     * Reason
     *
     * no_consent, not_approved, muted, disabled_by_host, cooldown, session_rate_limit, event_hook_cap, event_char_cap, server_char_cap, empty_context, context_tool_timeout, context_tool_error, context_tool_not_found, context_tool_empty, context_tool_unreachable, context_tool_late (its server was still starting past HOOK_READINESS_WAIT), context_tool_untrusted (the host runs only static hooks for untrusted servers), server_blocked, consent_unavailable (consent could not be read: nothing was sent)
     */
    reason: string;
    /**
     * Server
     */
    server: string;
};
/**
 * TaskIn
 */
export type TaskIn = {
    /**
     * The CreateTaskResult's eventSource
     */
    event_source: EventSourceIn;
    /**
     * Poll Interval Ms
     *
     * The task's pollInterval, when the server gave one
     */
    poll_interval_ms?: number | null;
    /**
     * Server
     *
     * A server id of this host
     */
    server: string;
    /**
     * Task Id
     *
     * The server's taskId
     */
    task_id: string;
    /**
     * User
     *
     * The user's external_id (whose call created the task)
     */
    user: string;
};
/**
 * TaskOut
 */
export type TaskOut = {
    /**
     * Created At
     */
    created_at: string;
    /**
     * Ended At
     *
     * When the task was seen terminal (or gone)
     */
    ended_at: string | null;
    /**
     * Event Source
     */
    event_source: {
        [key: string]: unknown;
    };
    /**
     * Id
     */
    id: string;
    /**
     * Last Checked At
     */
    last_checked_at: string | null;
    /**
     * Last Error
     *
     * The last failed tasks/get, or why it ended
     */
    last_error: string | null;
    /**
     * Next Check At
     *
     * The next tasks/get; null once ended
     */
    next_check_at: string | null;
    /**
     * Server
     */
    server: string;
    /**
     * Status
     *
     * As tasks/get last said (working until the first answer)
     */
    status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
    /**
     * Status Message
     */
    status_message: string | null;
    /**
     * The subscription to the event source; null when it could not be made
     */
    subscription: SubscriptionOut | null;
    /**
     * Subscription Error
     *
     * {code, message, field?}: why no subscription came of the event source
     */
    subscription_error: {
        [key: string]: unknown;
    } | null;
    /**
     * Task Id
     */
    task_id: string;
    /**
     * User
     */
    user: string;
};
/**
 * TaskPage
 */
export type TaskPage = {
    /**
     * Items
     */
    items: Array<TaskOut>;
    /**
     * Next Cursor
     */
    next_cursor: string | null;
};
/**
 * ThreadRefreshIn
 */
export type ThreadRefreshIn = {
    /**
     * Servers
     */
    servers?: Array<string> | null;
    /**
     * User
     */
    user: string;
};
/**
 * ThreadRefreshOut
 */
export type ThreadRefreshOut = {
    /**
     * Status
     *
     * scheduled | coalesced
     */
    status: string;
    /**
     * Thread Id
     */
    thread_id: string;
};
/**
 * UnsubscribeOut
 *
 * The ``events/unsubscribe`` owed once we ended it.
 */
export type UnsubscribeOut = {
    /**
     * Attempts
     */
    attempts: number;
    /**
     * Last Error
     */
    last_error: string | null;
    /**
     * Next Attempt At
     */
    next_attempt_at: string | null;
    /**
     * State
     */
    state: 'pending' | 'done' | 'failed';
};
/**
 * UserIn
 */
export type UserIn = {
    /**
     * Display Name
     */
    display_name?: string | null;
    /**
     * Email
     */
    email?: string | null;
    /**
     * Groups
     *
     * 0–50 group names of 1–100 characters; replaces the user's groups (left out: unchanged). Organisation grants are given to groups.
     */
    groups?: Array<string> | null;
};
/**
 * UserOut
 */
export type UserOut = {
    /**
     * Created At
     */
    created_at: string;
    /**
     * Display Name
     */
    display_name: string;
    /**
     * Email
     */
    email: string;
    /**
     * External Id
     */
    external_id: string;
    /**
     * Groups
     */
    groups: Array<string>;
    /**
     * Id
     */
    id: string;
};
/**
 * VerifyOut
 */
export type VerifyOut = {
    /**
     * Checked
     */
    checked: number;
    first_broken?: BrokenOut | null;
    /**
     * Ok
     */
    ok: boolean;
};
export type ListAccessRequestsData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * Status
         */
        status?: string | null;
        /**
         * Cursor
         */
        cursor?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
    };
    url: '/api/v1/access-requests';
};
export type ListAccessRequestsErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ListAccessRequestsError = ListAccessRequestsErrors[keyof ListAccessRequestsErrors];
export type ListAccessRequestsResponses = {
    /**
     * OK
     */
    200: AccessRequestPage;
};
export type ListAccessRequestsResponse = ListAccessRequestsResponses[keyof ListAccessRequestsResponses];
export type CreateAccessRequestData = {
    body: AccessRequestIn;
    path?: never;
    query?: never;
    url: '/api/v1/access-requests';
};
export type CreateAccessRequestErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type CreateAccessRequestError = CreateAccessRequestErrors[keyof CreateAccessRequestErrors];
export type CreateAccessRequestResponses = {
    /**
     * Created
     */
    201: AccessRequestOut;
};
export type CreateAccessRequestResponse = CreateAccessRequestResponses[keyof CreateAccessRequestResponses];
export type GetAccessRequestData = {
    body?: never;
    path: {
        /**
         * Request Id
         */
        request_id: string;
    };
    query?: never;
    url: '/api/v1/access-requests/{request_id}';
};
export type GetAccessRequestErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetAccessRequestError = GetAccessRequestErrors[keyof GetAccessRequestErrors];
export type GetAccessRequestResponses = {
    /**
     * OK
     */
    200: AccessRequestOut;
};
export type GetAccessRequestResponse = GetAccessRequestResponses[keyof GetAccessRequestResponses];
export type ApproveAccessRequestData = {
    body?: never;
    path: {
        /**
         * Request Id
         */
        request_id: string;
    };
    query?: never;
    url: '/api/v1/access-requests/{request_id}/approve';
};
export type ApproveAccessRequestErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ApproveAccessRequestError = ApproveAccessRequestErrors[keyof ApproveAccessRequestErrors];
export type ApproveAccessRequestResponses = {
    /**
     * OK
     */
    200: AccessRequestOut;
};
export type ApproveAccessRequestResponse = ApproveAccessRequestResponses[keyof ApproveAccessRequestResponses];
export type DenyAccessRequestData = {
    body: AccessDenyIn;
    path: {
        /**
         * Request Id
         */
        request_id: string;
    };
    query?: never;
    url: '/api/v1/access-requests/{request_id}/deny';
};
export type DenyAccessRequestErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type DenyAccessRequestError = DenyAccessRequestErrors[keyof DenyAccessRequestErrors];
export type DenyAccessRequestResponses = {
    /**
     * OK
     */
    200: AccessRequestOut;
};
export type DenyAccessRequestResponse = DenyAccessRequestResponses[keyof DenyAccessRequestResponses];
export type ListAuditData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * Kind
         */
        kind?: string | null;
        /**
         * User
         */
        user?: string | null;
        /**
         * Server
         */
        server?: string | null;
        /**
         * Since
         */
        since?: string | null;
        /**
         * Until
         */
        until?: string | null;
        /**
         * Cursor
         */
        cursor?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
    };
    url: '/api/v1/audit';
};
export type ListAuditErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ListAuditError = ListAuditErrors[keyof ListAuditErrors];
export type ListAuditResponses = {
    /**
     * OK
     */
    200: AuditPage;
};
export type ListAuditResponse = ListAuditResponses[keyof ListAuditResponses];
export type AuditCheckpointData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/audit/checkpoint';
};
export type AuditCheckpointErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type AuditCheckpointError = AuditCheckpointErrors[keyof AuditCheckpointErrors];
export type AuditCheckpointResponses = {
    /**
     * OK
     */
    200: CheckpointOut;
};
export type AuditCheckpointResponse = AuditCheckpointResponses[keyof AuditCheckpointResponses];
export type DeleteAuditDrainData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/audit/drain';
};
export type DeleteAuditDrainErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
};
export type DeleteAuditDrainError = DeleteAuditDrainErrors[keyof DeleteAuditDrainErrors];
export type DeleteAuditDrainResponses = {
    /**
     * No Content
     */
    204: void;
};
export type DeleteAuditDrainResponse = DeleteAuditDrainResponses[keyof DeleteAuditDrainResponses];
export type GetAuditDrainData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/audit/drain';
};
export type GetAuditDrainErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
};
export type GetAuditDrainError = GetAuditDrainErrors[keyof GetAuditDrainErrors];
export type GetAuditDrainResponses = {
    /**
     * OK
     */
    200: DrainOut;
};
export type GetAuditDrainResponse = GetAuditDrainResponses[keyof GetAuditDrainResponses];
export type PutAuditDrainData = {
    body: DrainIn;
    path?: never;
    query?: never;
    url: '/api/v1/audit/drain';
};
export type PutAuditDrainErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PutAuditDrainError = PutAuditDrainErrors[keyof PutAuditDrainErrors];
export type PutAuditDrainResponses = {
    /**
     * OK
     */
    200: DrainCreatedOut;
};
export type PutAuditDrainResponse = PutAuditDrainResponses[keyof PutAuditDrainResponses];
export type ExportAuditData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * Kind
         */
        kind?: string | null;
        /**
         * User
         */
        user?: string | null;
        /**
         * Server
         */
        server?: string | null;
        /**
         * Since
         */
        since?: string | null;
        /**
         * Until
         */
        until?: string | null;
        /**
         * Format
         */
        format?: 'csv' | 'jsonl';
    };
    url: '/api/v1/audit/export';
};
export type ExportAuditErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ExportAuditError = ExportAuditErrors[keyof ExportAuditErrors];
export type ExportAuditResponses = {
    /**
     * OK
     */
    200: unknown;
};
export type AuditConsistencyProofData = {
    body?: never;
    path?: never;
    query: {
        /**
         * From
         */
        from: number;
        /**
         * To
         */
        to: number;
    };
    url: '/api/v1/audit/proof/consistency';
};
export type AuditConsistencyProofErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type AuditConsistencyProofError = AuditConsistencyProofErrors[keyof AuditConsistencyProofErrors];
export type AuditConsistencyProofResponses = {
    /**
     * OK
     */
    200: ConsistencyOut;
};
export type AuditConsistencyProofResponse = AuditConsistencyProofResponses[keyof AuditConsistencyProofResponses];
export type AuditInclusionProofData = {
    body?: never;
    path?: never;
    query: {
        /**
         * Entry
         */
        entry: number;
        /**
         * Tree Size
         */
        tree_size: number;
    };
    url: '/api/v1/audit/proof/inclusion';
};
export type AuditInclusionProofErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type AuditInclusionProofError = AuditInclusionProofErrors[keyof AuditInclusionProofErrors];
export type AuditInclusionProofResponses = {
    /**
     * OK
     */
    200: InclusionOut;
};
export type AuditInclusionProofResponse = AuditInclusionProofResponses[keyof AuditInclusionProofResponses];
export type VerifyAuditData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * Since
         */
        since?: string | null;
    };
    url: '/api/v1/audit/verify';
};
export type VerifyAuditErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type VerifyAuditError = VerifyAuditErrors[keyof VerifyAuditErrors];
export type VerifyAuditResponses = {
    /**
     * OK
     */
    200: VerifyOut;
};
export type VerifyAuditResponse = VerifyAuditResponses[keyof VerifyAuditResponses];
export type CheckData = {
    body: ConsentCheckIn;
    path?: never;
    query?: never;
    url: '/api/v1/consent/check';
};
export type CheckErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type CheckError = CheckErrors[keyof CheckErrors];
export type CheckResponses = {
    /**
     * OK
     */
    200: ConsentCheckOut;
};
export type CheckResponse = CheckResponses[keyof CheckResponses];
export type CreateRequestData = {
    body: ConsentRequestIn;
    path?: never;
    query?: never;
    url: '/api/v1/consent/requests';
};
export type CreateRequestErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type CreateRequestError = CreateRequestErrors[keyof CreateRequestErrors];
export type CreateRequestResponses = {
    /**
     * OK
     */
    200: ConsentRequestCreated;
    /**
     * Created
     */
    201: ConsentRequestCreated;
};
export type CreateRequestResponse = CreateRequestResponses[keyof CreateRequestResponses];
export type GetRequestData = {
    body?: never;
    path: {
        /**
         * Request Id
         */
        request_id: string;
    };
    query?: never;
    url: '/api/v1/consent/requests/{request_id}';
};
export type GetRequestErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetRequestError = GetRequestErrors[keyof GetRequestErrors];
export type GetRequestResponses = {
    /**
     * OK
     */
    200: ConsentRequestOut;
};
export type GetRequestResponse = GetRequestResponses[keyof GetRequestResponses];
export type ReportInjectionData = {
    body: InjectionIn;
    path: {
        /**
         * Conversation Id
         */
        conversation_id: string;
    };
    query?: never;
    url: '/api/v1/conversations/{conversation_id}/injections';
};
export type ReportInjectionErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Content Too Large
     */
    413: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ReportInjectionError = ReportInjectionErrors[keyof ReportInjectionErrors];
export type ReportInjectionResponses = {
    /**
     * Created
     */
    201: InjectionOut;
};
export type ReportInjectionResponse = ReportInjectionResponses[keyof ReportInjectionResponses];
export type PostMessageData = {
    body: MessageIn;
    path: {
        /**
         * Conversation Id
         */
        conversation_id: string;
    };
    query?: never;
    url: '/api/v1/conversations/{conversation_id}/messages';
};
export type PostMessageErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Content Too Large
     */
    413: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PostMessageError = PostMessageErrors[keyof PostMessageErrors];
export type PostMessageResponses = {
    /**
     * OK
     */
    200: MessageOut;
};
export type PostMessageResponse = PostMessageResponses[keyof PostMessageResponses];
export type RevokeGrantData = {
    body?: never;
    path: {
        /**
         * Grant Id
         */
        grant_id: string;
    };
    query?: never;
    url: '/api/v1/grants/{grant_id}';
};
export type RevokeGrantErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type RevokeGrantError = RevokeGrantErrors[keyof RevokeGrantErrors];
export type RevokeGrantResponses = {
    /**
     * OK
     */
    200: GrantOut;
};
export type RevokeGrantResponse = RevokeGrantResponses[keyof RevokeGrantResponses];
export type SupportedEventsData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/hooks/supported-events';
};
export type SupportedEventsErrors = {
    /**
     * Unauthorized
     */
    401: ErrorOut;
};
export type SupportedEventsError = SupportedEventsErrors[keyof SupportedEventsErrors];
export type SupportedEventsResponses = {
    /**
     * OK
     */
    200: SupportedEventsOut;
};
export type SupportedEventsResponse = SupportedEventsResponses[keyof SupportedEventsResponses];
export type ListDeliveriesData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * Status
         */
        status?: string | null;
        /**
         * Type
         */
        type?: string | null;
        /**
         * Since
         */
        since?: string | null;
        /**
         * Cursor
         */
        cursor?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
    };
    url: '/api/v1/host/deliveries';
};
export type ListDeliveriesErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ListDeliveriesError = ListDeliveriesErrors[keyof ListDeliveriesErrors];
export type ListDeliveriesResponses = {
    /**
     * OK
     */
    200: DeliveryPage;
};
export type ListDeliveriesResponse = ListDeliveriesResponses[keyof ListDeliveriesResponses];
export type RecoverDeliveriesData = {
    body: RecoverIn;
    path?: never;
    query?: never;
    url: '/api/v1/host/deliveries/recover';
};
export type RecoverDeliveriesErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type RecoverDeliveriesError = RecoverDeliveriesErrors[keyof RecoverDeliveriesErrors];
export type RecoverDeliveriesResponses = {
    /**
     * Accepted
     */
    202: AcceptedOut;
};
export type RecoverDeliveriesResponse = RecoverDeliveriesResponses[keyof RecoverDeliveriesResponses];
export type ResendDeliveryData = {
    body?: never;
    path: {
        /**
         * Delivery Id
         */
        delivery_id: string;
    };
    query?: never;
    url: '/api/v1/host/deliveries/{delivery_id}/resend';
};
export type ResendDeliveryErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ResendDeliveryError = ResendDeliveryErrors[keyof ResendDeliveryErrors];
export type ResendDeliveryResponses = {
    /**
     * Accepted
     */
    202: AcceptedOut;
};
export type ResendDeliveryResponse = ResendDeliveryResponses[keyof ResendDeliveryResponses];
export type GetEndpointData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/host/endpoint';
};
export type GetEndpointErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetEndpointError = GetEndpointErrors[keyof GetEndpointErrors];
export type GetEndpointResponses = {
    /**
     * OK
     */
    200: EndpointOut;
};
export type GetEndpointResponse = GetEndpointResponses[keyof GetEndpointResponses];
export type PutEndpointData = {
    body: EndpointIn;
    path?: never;
    query?: never;
    url: '/api/v1/host/endpoint';
};
export type PutEndpointErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PutEndpointError = PutEndpointErrors[keyof PutEndpointErrors];
export type PutEndpointResponses = {
    /**
     * OK
     */
    200: EndpointCreatedOut;
};
export type PutEndpointResponse = PutEndpointResponses[keyof PutEndpointResponses];
export type EnableEndpointData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/host/endpoint/enable';
};
export type EnableEndpointErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type EnableEndpointError = EnableEndpointErrors[keyof EnableEndpointErrors];
export type EnableEndpointResponses = {
    /**
     * OK
     */
    200: EndpointOut;
};
export type EnableEndpointResponse = EnableEndpointResponses[keyof EnableEndpointResponses];
export type TestEndpointData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/host/endpoint/test';
};
export type TestEndpointErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type TestEndpointError = TestEndpointErrors[keyof TestEndpointErrors];
export type TestEndpointResponses = {
    /**
     * Accepted
     */
    202: AcceptedOut;
};
export type TestEndpointResponse = TestEndpointResponses[keyof TestEndpointResponses];
export type ListOrgGrantsData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * Cursor
         */
        cursor?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
    };
    url: '/api/v1/org-grants';
};
export type ListOrgGrantsErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ListOrgGrantsError = ListOrgGrantsErrors[keyof ListOrgGrantsErrors];
export type ListOrgGrantsResponses = {
    /**
     * OK
     */
    200: OrgGrantPage;
};
export type ListOrgGrantsResponse = ListOrgGrantsResponses[keyof ListOrgGrantsResponses];
export type CreateOrgGrantData = {
    body: OrgGrantIn;
    path?: never;
    query?: never;
    url: '/api/v1/org-grants';
};
export type CreateOrgGrantErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type CreateOrgGrantError = CreateOrgGrantErrors[keyof CreateOrgGrantErrors];
export type CreateOrgGrantResponses = {
    /**
     * Created
     */
    201: OrgGrantOut;
};
export type CreateOrgGrantResponse = CreateOrgGrantResponses[keyof CreateOrgGrantResponses];
export type EndOrgGrantData = {
    body?: never;
    path: {
        /**
         * Org Grant Id
         */
        org_grant_id: string;
    };
    query?: never;
    url: '/api/v1/org-grants/{org_grant_id}';
};
export type EndOrgGrantErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type EndOrgGrantError = EndOrgGrantErrors[keyof EndOrgGrantErrors];
export type EndOrgGrantResponses = {
    /**
     * No Content
     */
    204: void;
};
export type EndOrgGrantResponse = EndOrgGrantResponses[keyof EndOrgGrantResponses];
export type GetOrgGrantData = {
    body?: never;
    path: {
        /**
         * Org Grant Id
         */
        org_grant_id: string;
    };
    query?: never;
    url: '/api/v1/org-grants/{org_grant_id}';
};
export type GetOrgGrantErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetOrgGrantError = GetOrgGrantErrors[keyof GetOrgGrantErrors];
export type GetOrgGrantResponses = {
    /**
     * OK
     */
    200: OrgGrantOut;
};
export type GetOrgGrantResponse = GetOrgGrantResponses[keyof GetOrgGrantResponses];
export type ApproveOrgGrantData = {
    body?: never;
    path: {
        /**
         * Org Grant Id
         */
        org_grant_id: string;
    };
    query?: never;
    url: '/api/v1/org-grants/{org_grant_id}/approve';
};
export type ApproveOrgGrantErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ApproveOrgGrantError = ApproveOrgGrantErrors[keyof ApproveOrgGrantErrors];
export type ApproveOrgGrantResponses = {
    /**
     * OK
     */
    200: OrgGrantOut;
};
export type ApproveOrgGrantResponse = ApproveOrgGrantResponses[keyof ApproveOrgGrantResponses];
export type GetPolicyData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/policy';
};
export type GetPolicyErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetPolicyError = GetPolicyErrors[keyof GetPolicyErrors];
export type GetPolicyResponses = {
    /**
     * OK
     */
    200: PolicyOut;
};
export type GetPolicyResponse = GetPolicyResponses[keyof GetPolicyResponses];
export type PutPolicyData = {
    body: PolicyIn;
    path?: never;
    query?: never;
    url: '/api/v1/policy';
};
export type PutPolicyErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PutPolicyError = PutPolicyErrors[keyof PutPolicyErrors];
export type PutPolicyResponses = {
    /**
     * OK
     */
    200: PolicyOut;
};
export type PutPolicyResponse = PutPolicyResponses[keyof PutPolicyResponses];
export type ListServersData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * Cursor
         */
        cursor?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
    };
    url: '/api/v1/servers';
};
export type ListServersErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ListServersError = ListServersErrors[keyof ListServersErrors];
export type ListServersResponses = {
    /**
     * OK
     */
    200: ServerPage;
};
export type ListServersResponse = ListServersResponses[keyof ListServersResponses];
export type RegisterServerData = {
    body: ServerIn;
    path?: never;
    query?: never;
    url: '/api/v1/servers';
};
export type RegisterServerErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type RegisterServerError = RegisterServerErrors[keyof RegisterServerErrors];
export type RegisterServerResponses = {
    /**
     * Created
     */
    201: ServerOut;
};
export type RegisterServerResponse = RegisterServerResponses[keyof RegisterServerResponses];
export type DeleteServerData = {
    body?: never;
    path: {
        /**
         * Server Id
         */
        server_id: string;
    };
    query?: never;
    url: '/api/v1/servers/{server_id}';
};
export type DeleteServerErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type DeleteServerError = DeleteServerErrors[keyof DeleteServerErrors];
export type DeleteServerResponses = {
    /**
     * No Content
     */
    204: void;
};
export type DeleteServerResponse = DeleteServerResponses[keyof DeleteServerResponses];
export type GetServerData = {
    body?: never;
    path: {
        /**
         * Server Id
         */
        server_id: string;
    };
    query?: never;
    url: '/api/v1/servers/{server_id}';
};
export type GetServerErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetServerError = GetServerErrors[keyof GetServerErrors];
export type GetServerResponses = {
    /**
     * OK
     */
    200: ServerOut;
};
export type GetServerResponse = GetServerResponses[keyof GetServerResponses];
export type PatchServerData = {
    body: ServerPatch;
    path: {
        /**
         * Server Id
         */
        server_id: string;
    };
    query?: never;
    url: '/api/v1/servers/{server_id}';
};
export type PatchServerErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PatchServerError = PatchServerErrors[keyof PatchServerErrors];
export type PatchServerResponses = {
    /**
     * OK
     */
    200: ServerOut;
};
export type PatchServerResponse = PatchServerResponses[keyof PatchServerResponses];
export type BlockServerData = {
    body?: never;
    path: {
        /**
         * Server Id
         */
        server_id: string;
    };
    query?: never;
    url: '/api/v1/servers/{server_id}/block';
};
export type BlockServerErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type BlockServerError = BlockServerErrors[keyof BlockServerErrors];
export type BlockServerResponses = {
    /**
     * OK
     */
    200: BlockOut;
};
export type BlockServerResponse = BlockServerResponses[keyof BlockServerResponses];
export type SyncServerData = {
    body?: never;
    path: {
        /**
         * Server Id
         */
        server_id: string;
    };
    query?: never;
    url: '/api/v1/servers/{server_id}/sync';
};
export type SyncServerErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type SyncServerError = SyncServerErrors[keyof SyncServerErrors];
export type SyncServerResponses = {
    /**
     * OK
     */
    200: ServerOut;
};
export type SyncServerResponse = SyncServerResponses[keyof SyncServerResponses];
export type UnblockServerData = {
    body?: never;
    path: {
        /**
         * Server Id
         */
        server_id: string;
    };
    query?: never;
    url: '/api/v1/servers/{server_id}/unblock';
};
export type UnblockServerErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type UnblockServerError = UnblockServerErrors[keyof UnblockServerErrors];
export type UnblockServerResponses = {
    /**
     * OK
     */
    200: BlockOut;
};
export type UnblockServerResponse = UnblockServerResponses[keyof UnblockServerResponses];
export type LifecycleData = {
    body: LifecycleIn;
    path: {
        /**
         * Session Id
         */
        session_id: string;
    };
    query?: never;
    url: '/api/v1/sessions/{session_id}/lifecycle';
};
export type LifecycleErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type LifecycleError = LifecycleErrors[keyof LifecycleErrors];
export type LifecycleResponses = {
    /**
     * OK
     */
    200: LifecycleOut;
};
export type LifecycleResponse = LifecycleResponses[keyof LifecycleResponses];
export type DeleteSsoData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/sso';
};
export type DeleteSsoErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type DeleteSsoError = DeleteSsoErrors[keyof DeleteSsoErrors];
export type DeleteSsoResponses = {
    /**
     * No Content
     */
    204: void;
};
export type DeleteSsoResponse = DeleteSsoResponses[keyof DeleteSsoResponses];
export type GetSsoData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/sso';
};
export type GetSsoErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetSsoError = GetSsoErrors[keyof GetSsoErrors];
export type GetSsoResponses = {
    /**
     * OK
     */
    200: SsoOut;
};
export type GetSsoResponse = GetSsoResponses[keyof GetSsoResponses];
export type PutSsoData = {
    body: SsoIn;
    path?: never;
    query?: never;
    url: '/api/v1/sso';
};
export type PutSsoErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PutSsoError = PutSsoErrors[keyof PutSsoErrors];
export type PutSsoResponses = {
    /**
     * OK
     */
    200: SsoOut;
};
export type PutSsoResponse = PutSsoResponses[keyof PutSsoResponses];
export type PostScimTokenData = {
    body?: never;
    path?: never;
    query?: never;
    url: '/api/v1/sso/scim-token';
};
export type PostScimTokenErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PostScimTokenError = PostScimTokenErrors[keyof PostScimTokenErrors];
export type PostScimTokenResponses = {
    /**
     * Created
     */
    201: ScimTokenOut;
};
export type PostScimTokenResponse = PostScimTokenResponses[keyof PostScimTokenResponses];
export type ListSubscriptionsData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * User
         */
        user?: string | null;
        /**
         * Server
         */
        server?: string | null;
        /**
         * Status
         */
        status?: string | null;
        /**
         * Cursor
         */
        cursor?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
    };
    url: '/api/v1/subscriptions';
};
export type ListSubscriptionsErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ListSubscriptionsError = ListSubscriptionsErrors[keyof ListSubscriptionsErrors];
export type ListSubscriptionsResponses = {
    /**
     * OK
     */
    200: SubscriptionPage;
};
export type ListSubscriptionsResponse = ListSubscriptionsResponses[keyof ListSubscriptionsResponses];
export type CreateSubscriptionData = {
    body: SubscriptionIn;
    path?: never;
    query?: never;
    url: '/api/v1/subscriptions';
};
export type CreateSubscriptionErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type CreateSubscriptionError = CreateSubscriptionErrors[keyof CreateSubscriptionErrors];
export type CreateSubscriptionResponses = {
    /**
     * OK
     */
    200: SubscriptionOut;
    /**
     * Created
     */
    201: SubscriptionOut;
};
export type CreateSubscriptionResponse = CreateSubscriptionResponses[keyof CreateSubscriptionResponses];
export type RevokeSubscriptionData = {
    body?: never;
    path: {
        /**
         * Subscription Id
         */
        subscription_id: string;
    };
    query?: never;
    url: '/api/v1/subscriptions/{subscription_id}';
};
export type RevokeSubscriptionErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type RevokeSubscriptionError = RevokeSubscriptionErrors[keyof RevokeSubscriptionErrors];
export type RevokeSubscriptionResponses = {
    /**
     * OK
     */
    200: RevokedOut;
};
export type RevokeSubscriptionResponse = RevokeSubscriptionResponses[keyof RevokeSubscriptionResponses];
export type GetSubscriptionData = {
    body?: never;
    path: {
        /**
         * Subscription Id
         */
        subscription_id: string;
    };
    query?: never;
    url: '/api/v1/subscriptions/{subscription_id}';
};
export type GetSubscriptionErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetSubscriptionError = GetSubscriptionErrors[keyof GetSubscriptionErrors];
export type GetSubscriptionResponses = {
    /**
     * OK
     */
    200: SubscriptionOut;
};
export type GetSubscriptionResponse = GetSubscriptionResponses[keyof GetSubscriptionResponses];
export type ChangeSubscriptionData = {
    body: SubscriptionPatch;
    path: {
        /**
         * Subscription Id
         */
        subscription_id: string;
    };
    query?: never;
    url: '/api/v1/subscriptions/{subscription_id}';
};
export type ChangeSubscriptionErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ChangeSubscriptionError = ChangeSubscriptionErrors[keyof ChangeSubscriptionErrors];
export type ChangeSubscriptionResponses = {
    /**
     * OK
     */
    200: SubscriptionOut;
};
export type ChangeSubscriptionResponse = ChangeSubscriptionResponses[keyof ChangeSubscriptionResponses];
export type PullEventsData = {
    body?: never;
    path: {
        /**
         * Subscription Id
         */
        subscription_id: string;
    };
    query?: {
        /**
         * After
         */
        after?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
    };
    url: '/api/v1/subscriptions/{subscription_id}/events';
};
export type PullEventsErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
    /**
     * Service Unavailable
     */
    503: ErrorOut;
};
export type PullEventsError = PullEventsErrors[keyof PullEventsErrors];
export type PullEventsResponses = {
    /**
     * OK
     */
    200: PulledPage;
};
export type PullEventsResponse = PullEventsResponses[keyof PullEventsResponses];
export type PauseSubscriptionData = {
    body?: never;
    path: {
        /**
         * Subscription Id
         */
        subscription_id: string;
    };
    query?: never;
    url: '/api/v1/subscriptions/{subscription_id}/pause';
};
export type PauseSubscriptionErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PauseSubscriptionError = PauseSubscriptionErrors[keyof PauseSubscriptionErrors];
export type PauseSubscriptionResponses = {
    /**
     * OK
     */
    200: SubscriptionOut;
};
export type PauseSubscriptionResponse = PauseSubscriptionResponses[keyof PauseSubscriptionResponses];
export type ResumeSubscriptionData = {
    body?: never;
    path: {
        /**
         * Subscription Id
         */
        subscription_id: string;
    };
    query?: never;
    url: '/api/v1/subscriptions/{subscription_id}/resume';
};
export type ResumeSubscriptionErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ResumeSubscriptionError = ResumeSubscriptionErrors[keyof ResumeSubscriptionErrors];
export type ResumeSubscriptionResponses = {
    /**
     * OK
     */
    200: SubscriptionOut;
};
export type ResumeSubscriptionResponse = ResumeSubscriptionResponses[keyof ResumeSubscriptionResponses];
export type RotateSecretData = {
    body?: never;
    path: {
        /**
         * Subscription Id
         */
        subscription_id: string;
    };
    query?: never;
    url: '/api/v1/subscriptions/{subscription_id}/rotate-secret';
};
export type RotateSecretErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type RotateSecretError = RotateSecretErrors[keyof RotateSecretErrors];
export type RotateSecretResponses = {
    /**
     * OK
     */
    200: SubscriptionOut;
};
export type RotateSecretResponse = RotateSecretResponses[keyof RotateSecretResponses];
export type ListTasksData = {
    body?: never;
    path?: never;
    query?: {
        /**
         * User
         */
        user?: string | null;
        /**
         * Server
         */
        server?: string | null;
        /**
         * Cursor
         */
        cursor?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
    };
    url: '/api/v1/tasks';
};
export type ListTasksErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ListTasksError = ListTasksErrors[keyof ListTasksErrors];
export type ListTasksResponses = {
    /**
     * OK
     */
    200: TaskPage;
};
export type ListTasksResponse = ListTasksResponses[keyof ListTasksResponses];
export type HandOverTaskData = {
    body: TaskIn;
    path?: never;
    query?: never;
    url: '/api/v1/tasks';
};
export type HandOverTaskErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type HandOverTaskError = HandOverTaskErrors[keyof HandOverTaskErrors];
export type HandOverTaskResponses = {
    /**
     * OK
     */
    200: TaskOut;
    /**
     * Created
     */
    201: TaskOut;
};
export type HandOverTaskResponse = HandOverTaskResponses[keyof HandOverTaskResponses];
export type GetTaskData = {
    body?: never;
    path: {
        /**
         * Task Watch Id
         */
        task_watch_id: string;
    };
    query?: never;
    url: '/api/v1/tasks/{task_watch_id}';
};
export type GetTaskErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetTaskError = GetTaskErrors[keyof GetTaskErrors];
export type GetTaskResponses = {
    /**
     * OK
     */
    200: TaskOut;
};
export type GetTaskResponse = GetTaskResponses[keyof GetTaskResponses];
export type RefreshThreadData = {
    body: ThreadRefreshIn;
    path: {
        /**
         * Thread Id
         */
        thread_id: string;
    };
    query?: never;
    url: '/api/v1/threads/{thread_id}/refresh';
};
export type RefreshThreadErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Forbidden
     */
    403: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Conflict
     */
    409: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
    /**
     * Too Many Requests
     */
    429: ErrorOut;
};
export type RefreshThreadError = RefreshThreadErrors[keyof RefreshThreadErrors];
export type RefreshThreadResponses = {
    /**
     * Accepted
     */
    202: ThreadRefreshOut;
};
export type RefreshThreadResponse = RefreshThreadResponses[keyof RefreshThreadResponses];
export type DeleteUserData = {
    body?: never;
    path: {
        /**
         * External Id
         */
        external_id: string;
    };
    query?: never;
    url: '/api/v1/users/{external_id}';
};
export type DeleteUserErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type DeleteUserError = DeleteUserErrors[keyof DeleteUserErrors];
export type DeleteUserResponses = {
    /**
     * No Content
     */
    204: void;
};
export type DeleteUserResponse = DeleteUserResponses[keyof DeleteUserResponses];
export type GetUserData = {
    body?: never;
    path: {
        /**
         * External Id
         */
        external_id: string;
    };
    query?: never;
    url: '/api/v1/users/{external_id}';
};
export type GetUserErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type GetUserError = GetUserErrors[keyof GetUserErrors];
export type GetUserResponses = {
    /**
     * OK
     */
    200: UserOut;
};
export type GetUserResponse = GetUserResponses[keyof GetUserResponses];
export type PutUserData = {
    body: UserIn;
    path: {
        /**
         * External Id
         */
        external_id: string;
    };
    query?: never;
    url: '/api/v1/users/{external_id}';
};
export type PutUserErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PutUserError = PutUserErrors[keyof PutUserErrors];
export type PutUserResponses = {
    /**
     * OK
     */
    200: UserOut;
    /**
     * Created
     */
    201: UserOut;
};
export type PutUserResponse = PutUserResponses[keyof PutUserResponses];
export type ListGrantsData = {
    body?: never;
    path: {
        /**
         * External Id
         */
        external_id: string;
    };
    query?: {
        /**
         * Cursor
         */
        cursor?: string | null;
        /**
         * Limit
         */
        limit?: number | null;
        /**
         * At
         */
        at?: string | null;
    };
    url: '/api/v1/users/{external_id}/grants';
};
export type ListGrantsErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type ListGrantsError = ListGrantsErrors[keyof ListGrantsErrors];
export type ListGrantsResponses = {
    /**
     * OK
     */
    200: GrantPage;
};
export type ListGrantsResponse = ListGrantsResponses[keyof ListGrantsResponses];
export type CreateLoginLinkData = {
    body?: LoginLinkIn | null;
    path: {
        /**
         * External Id
         */
        external_id: string;
    };
    query?: never;
    url: '/api/v1/users/{external_id}/login-links';
};
export type CreateLoginLinkErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type CreateLoginLinkError = CreateLoginLinkErrors[keyof CreateLoginLinkErrors];
export type CreateLoginLinkResponses = {
    /**
     * Created
     */
    201: LoginLinkOut;
};
export type CreateLoginLinkResponse = CreateLoginLinkResponses[keyof CreateLoginLinkResponses];
export type PutCredentialsData = {
    body: CredentialsIn;
    path: {
        /**
         * External Id
         */
        external_id: string;
        /**
         * Server Id
         */
        server_id: string;
    };
    query?: never;
    url: '/api/v1/users/{external_id}/servers/{server_id}/credentials';
};
export type PutCredentialsErrors = {
    /**
     * Bad Request
     */
    400: ErrorOut;
    /**
     * Unauthorized
     */
    401: ErrorOut;
    /**
     * Not Found
     */
    404: ErrorOut;
    /**
     * Unprocessable Content
     */
    422: ErrorOut;
};
export type PutCredentialsError = PutCredentialsErrors[keyof PutCredentialsErrors];
export type PutCredentialsResponses = {
    /**
     * No Content
     */
    204: void;
};
export type PutCredentialsResponse = PutCredentialsResponses[keyof PutCredentialsResponses];
