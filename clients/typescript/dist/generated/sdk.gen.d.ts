import type { Client, Options as Options2, TDataShape } from './client/index.js';
import type { ApproveAccessRequestData, ApproveAccessRequestErrors, ApproveAccessRequestResponses, ApproveOrgGrantData, ApproveOrgGrantErrors, ApproveOrgGrantResponses, AuditCheckpointData, AuditCheckpointErrors, AuditCheckpointResponses, AuditConsistencyProofData, AuditConsistencyProofErrors, AuditConsistencyProofResponses, AuditInclusionProofData, AuditInclusionProofErrors, AuditInclusionProofResponses, BlockServerData, BlockServerErrors, BlockServerResponses, ChangeSubscriptionData, ChangeSubscriptionErrors, ChangeSubscriptionResponses, CheckData, CheckErrors, CheckResponses, CreateAccessRequestData, CreateAccessRequestErrors, CreateAccessRequestResponses, CreateLoginLinkData, CreateLoginLinkErrors, CreateLoginLinkResponses, CreateOrgGrantData, CreateOrgGrantErrors, CreateOrgGrantResponses, CreateRequestData, CreateRequestErrors, CreateRequestResponses, CreateSubscriptionData, CreateSubscriptionErrors, CreateSubscriptionResponses, DeleteAuditDrainData, DeleteAuditDrainErrors, DeleteAuditDrainResponses, DeleteServerData, DeleteServerErrors, DeleteServerResponses, DeleteSsoData, DeleteSsoErrors, DeleteSsoResponses, DeleteUserData, DeleteUserErrors, DeleteUserResponses, DenyAccessRequestData, DenyAccessRequestErrors, DenyAccessRequestResponses, EnableEndpointData, EnableEndpointErrors, EnableEndpointResponses, EndOrgGrantData, EndOrgGrantErrors, EndOrgGrantResponses, ExportAuditData, ExportAuditErrors, ExportAuditResponses, GetAccessRequestData, GetAccessRequestErrors, GetAccessRequestResponses, GetAuditDrainData, GetAuditDrainErrors, GetAuditDrainResponses, GetEndpointData, GetEndpointErrors, GetEndpointResponses, GetOrgGrantData, GetOrgGrantErrors, GetOrgGrantResponses, GetPolicyData, GetPolicyErrors, GetPolicyResponses, GetRequestData, GetRequestErrors, GetRequestResponses, GetServerData, GetServerErrors, GetServerResponses, GetSsoData, GetSsoErrors, GetSsoResponses, GetSubscriptionData, GetSubscriptionErrors, GetSubscriptionResponses, GetTaskData, GetTaskErrors, GetTaskResponses, GetUserData, GetUserErrors, GetUserResponses, HandOverTaskData, HandOverTaskErrors, HandOverTaskResponses, LifecycleData, LifecycleErrors, LifecycleResponses, ListAccessRequestsData, ListAccessRequestsErrors, ListAccessRequestsResponses, ListAuditData, ListAuditErrors, ListAuditResponses, ListDeliveriesData, ListDeliveriesErrors, ListDeliveriesResponses, ListGrantsData, ListGrantsErrors, ListGrantsResponses, ListOrgGrantsData, ListOrgGrantsErrors, ListOrgGrantsResponses, ListServersData, ListServersErrors, ListServersResponses, ListSubscriptionsData, ListSubscriptionsErrors, ListSubscriptionsResponses, ListTasksData, ListTasksErrors, ListTasksResponses, PatchServerData, PatchServerErrors, PatchServerResponses, PauseSubscriptionData, PauseSubscriptionErrors, PauseSubscriptionResponses, PostMessageData, PostMessageErrors, PostMessageResponses, PostScimTokenData, PostScimTokenErrors, PostScimTokenResponses, PullEventsData, PullEventsErrors, PullEventsResponses, PutAuditDrainData, PutAuditDrainErrors, PutAuditDrainResponses, PutCredentialsData, PutCredentialsErrors, PutCredentialsResponses, PutEndpointData, PutEndpointErrors, PutEndpointResponses, PutPolicyData, PutPolicyErrors, PutPolicyResponses, PutSsoData, PutSsoErrors, PutSsoResponses, PutUserData, PutUserErrors, PutUserResponses, RecoverDeliveriesData, RecoverDeliveriesErrors, RecoverDeliveriesResponses, RefreshThreadData, RefreshThreadErrors, RefreshThreadResponses, RegisterServerData, RegisterServerErrors, RegisterServerResponses, ReportInjectionData, ReportInjectionErrors, ReportInjectionResponses, ResendDeliveryData, ResendDeliveryErrors, ResendDeliveryResponses, ResumeSubscriptionData, ResumeSubscriptionErrors, ResumeSubscriptionResponses, RevokeGrantData, RevokeGrantErrors, RevokeGrantResponses, RevokeSubscriptionData, RevokeSubscriptionErrors, RevokeSubscriptionResponses, RotateSecretData, RotateSecretErrors, RotateSecretResponses, SupportedEventsData, SupportedEventsErrors, SupportedEventsResponses, SyncServerData, SyncServerErrors, SyncServerResponses, TestEndpointData, TestEndpointErrors, TestEndpointResponses, UnblockServerData, UnblockServerErrors, UnblockServerResponses, VerifyAuditData, VerifyAuditErrors, VerifyAuditResponses } from './types.gen.js';
export type Options<TData extends TDataShape = TDataShape, ThrowOnError extends boolean = boolean> = Options2<TData, ThrowOnError> & {
    /**
     * You can provide a client instance returned by `createClient()` instead of
     * individual options. This might be also useful if you want to implement a
     * custom client.
     */
    client?: Client;
    /**
     * You can pass arbitrary values through the `meta` object. This can be
     * used to access values that aren't defined as part of the SDK function.
     */
    meta?: Record<string, unknown>;
};
/**
 * List Access Requests
 *
 * Newest first; ``status``: pending, approved or denied.
 */
export declare const listAccessRequests: <ThrowOnError extends boolean = false>(options?: Options<ListAccessRequestsData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ListAccessRequestsResponses, ListAccessRequestsErrors, ThrowOnError, "fields">;
/**
 * Create Access Request
 *
 * The user asks for a registered server the policy does not allow yet.
 * 409 ``already_allowed`` when it does; 409 ``already_requested`` while the
 * user's earlier request waits.
 */
export declare const createAccessRequest: <ThrowOnError extends boolean = false>(options: Options<CreateAccessRequestData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<CreateAccessRequestResponses, CreateAccessRequestErrors, ThrowOnError, "fields">;
/**
 * Get Access Request
 */
export declare const getAccessRequest: <ThrowOnError extends boolean = false>(options: Options<GetAccessRequestData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetAccessRequestResponses, GetAccessRequestErrors, ThrowOnError, "fields">;
/**
 * Approve Access Request
 *
 * The server joins the allow list (or leaves the deny list) and the user
 * gets an ordinary consent request for what it offers.
 */
export declare const approveAccessRequest: <ThrowOnError extends boolean = false>(options: Options<ApproveAccessRequestData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ApproveAccessRequestResponses, ApproveAccessRequestErrors, ThrowOnError, "fields">;
/**
 * Deny Access Request
 */
export declare const denyAccessRequest: <ThrowOnError extends boolean = false>(options: Options<DenyAccessRequestData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<DenyAccessRequestResponses, DenyAccessRequestErrors, ThrowOnError, "fields">;
/**
 * List Audit
 */
export declare const listAudit: <ThrowOnError extends boolean = false>(options?: Options<ListAuditData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ListAuditResponses, ListAuditErrors, ThrowOnError, "fields">;
/**
 * Audit Checkpoint
 *
 * The newest signed checkpoint of this host's ledger (404 before the first).
 */
export declare const auditCheckpoint: <ThrowOnError extends boolean = false>(options?: Options<AuditCheckpointData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<AuditCheckpointResponses, AuditCheckpointErrors, ThrowOnError, "fields">;
/**
 * Delete Audit Drain
 */
export declare const deleteAuditDrain: <ThrowOnError extends boolean = false>(options?: Options<DeleteAuditDrainData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<DeleteAuditDrainResponses, DeleteAuditDrainErrors, ThrowOnError, "fields">;
/**
 * Get Audit Drain
 *
 * The drain's status, how far it has delivered and its lag.
 */
export declare const getAuditDrain: <ThrowOnError extends boolean = false>(options?: Options<GetAuditDrainData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetAuditDrainResponses, GetAuditDrainErrors, ThrowOnError, "fields">;
/**
 * Put Audit Drain
 *
 * Send this host's ledger entries written from now on to ``url`` (a
 * SIEM), in batches signed with the returned secret (shown once).
 */
export declare const putAuditDrain: <ThrowOnError extends boolean = false>(options: Options<PutAuditDrainData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PutAuditDrainResponses, PutAuditDrainErrors, ThrowOnError, "fields">;
/**
 * Export Audit
 */
export declare const exportAudit: <ThrowOnError extends boolean = false>(options?: Options<ExportAuditData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ExportAuditResponses, ExportAuditErrors, ThrowOnError, "fields">;
/**
 * Audit Consistency Proof
 *
 * RFC 9162 §2.1.4: the tree of ``to`` extends the tree of ``from``
 * (both sizes checkpoints were issued for).
 */
export declare const auditConsistencyProof: <ThrowOnError extends boolean = false>(options: Options<AuditConsistencyProofData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<AuditConsistencyProofResponses, AuditConsistencyProofErrors, ThrowOnError, "fields">;
/**
 * Audit Inclusion Proof
 *
 * RFC 9162 §2.1.3: the entry's audit path in the tree of ``tree_size``
 * (a size a checkpoint was issued for).
 */
export declare const auditInclusionProof: <ThrowOnError extends boolean = false>(options: Options<AuditInclusionProofData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<AuditInclusionProofResponses, AuditInclusionProofErrors, ThrowOnError, "fields">;
/**
 * Verify Audit
 *
 * Check this host's ledger hash chain (from ``since``, default the
 * start): ``ok``, how many entries held, and the first that does not.
 */
export declare const verifyAudit: <ThrowOnError extends boolean = false>(options?: Options<VerifyAuditData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<VerifyAuditResponses, VerifyAuditErrors, ThrowOnError, "fields">;
/**
 * Check
 *
 * Is this allowed right now? ``source`` (who allowed it) only when it is.
 */
export declare const check: <ThrowOnError extends boolean = false>(options: Options<CheckData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<CheckResponses, CheckErrors, ThrowOnError, "fields">;
/**
 * Create Request
 *
 * Ask a user for consent. The same open request again answers 200 with it.
 */
export declare const createRequest: <ThrowOnError extends boolean = false>(options: Options<CreateRequestData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<CreateRequestResponses, CreateRequestErrors, ThrowOnError, "fields">;
/**
 * Get Request
 */
export declare const getRequest: <ThrowOnError extends boolean = false>(options: Options<GetRequestData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetRequestResponses, GetRequestErrors, ThrowOnError, "fields">;
/**
 * Report Injection
 *
 * For hosts that called a server themselves: recorded like ours; 403 when
 * no live ``conversation:read`` grant allowed it.
 */
export declare const reportInjection: <ThrowOnError extends boolean = false>(options: Options<ReportInjectionData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ReportInjectionResponses, ReportInjectionErrors, ThrowOnError, "fields">;
/**
 * Post Message
 *
 * Send a user message to every server allowed to read it; answers within
 * the host's budget (default 500 ms) plus a few milliseconds.
 */
export declare const postMessage: <ThrowOnError extends boolean = false>(options: Options<PostMessageData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PostMessageResponses, PostMessageErrors, ThrowOnError, "fields">;
/**
 * Revoke Grant
 *
 * Turn a grant off for its user. One an organisation grant gave: only
 * where it lets users do so (403 ``revoke_not_allowed`` otherwise).
 */
export declare const revokeGrant: <ThrowOnError extends boolean = false>(options: Options<RevokeGrantData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<RevokeGrantResponses, RevokeGrantErrors, ThrowOnError, "fields">;
/**
 * Supported Events
 *
 * The SEP-2282 events to advertise in the host's client capabilities.
 */
export declare const supportedEvents: <ThrowOnError extends boolean = false>(options?: Options<SupportedEventsData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<SupportedEventsResponses, SupportedEventsErrors, ThrowOnError, "fields">;
/**
 * List Deliveries
 */
export declare const listDeliveries: <ThrowOnError extends boolean = false>(options?: Options<ListDeliveriesData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ListDeliveriesResponses, ListDeliveriesErrors, ThrowOnError, "fields">;
/**
 * Recover Deliveries
 */
export declare const recoverDeliveries: <ThrowOnError extends boolean = false>(options: Options<RecoverDeliveriesData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<RecoverDeliveriesResponses, RecoverDeliveriesErrors, ThrowOnError, "fields">;
/**
 * Resend Delivery
 */
export declare const resendDelivery: <ThrowOnError extends boolean = false>(options: Options<ResendDeliveryData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ResendDeliveryResponses, ResendDeliveryErrors, ThrowOnError, "fields">;
/**
 * Get Endpoint
 */
export declare const getEndpoint: <ThrowOnError extends boolean = false>(options?: Options<GetEndpointData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetEndpointResponses, GetEndpointErrors, ThrowOnError, "fields">;
/**
 * Put Endpoint
 */
export declare const putEndpoint: <ThrowOnError extends boolean = false>(options: Options<PutEndpointData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PutEndpointResponses, PutEndpointErrors, ThrowOnError, "fields">;
/**
 * Enable Endpoint
 */
export declare const enableEndpoint: <ThrowOnError extends boolean = false>(options?: Options<EnableEndpointData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<EnableEndpointResponses, EnableEndpointErrors, ThrowOnError, "fields">;
/**
 * Test Endpoint
 */
export declare const testEndpoint: <ThrowOnError extends boolean = false>(options?: Options<TestEndpointData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<TestEndpointResponses, TestEndpointErrors, ThrowOnError, "fields">;
/**
 * List Org Grants
 */
export declare const listOrgGrants: <ThrowOnError extends boolean = false>(options?: Options<ListOrgGrantsData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ListOrgGrantsResponses, ListOrgGrantsErrors, ThrowOnError, "fields">;
/**
 * Create Org Grant
 *
 * Allow a server for groups of users (``["*"]``: everyone), no prompt;
 * 409 ``server_blocked`` for a blocked server, 403 ``server_not_allowed``
 * for one the policy does not allow.
 */
export declare const createOrgGrant: <ThrowOnError extends boolean = false>(options: Options<CreateOrgGrantData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<CreateOrgGrantResponses, CreateOrgGrantErrors, ThrowOnError, "fields">;
/**
 * End Org Grant
 *
 * End it: it stops applying at the very next call, for every member.
 */
export declare const endOrgGrant: <ThrowOnError extends boolean = false>(options: Options<EndOrgGrantData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<EndOrgGrantResponses, EndOrgGrantErrors, ThrowOnError, "fields">;
/**
 * Get Org Grant
 */
export declare const getOrgGrant: <ThrowOnError extends boolean = false>(options: Options<GetOrgGrantData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetOrgGrantResponses, GetOrgGrantErrors, ThrowOnError, "fields">;
/**
 * Approve Org Grant
 *
 * A grant suspended by a change of its server applies again.
 */
export declare const approveOrgGrant: <ThrowOnError extends boolean = false>(options: Options<ApproveOrgGrantData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ApproveOrgGrantResponses, ApproveOrgGrantErrors, ThrowOnError, "fields">;
/**
 * Get Policy
 *
 * The organisation policy every path applies: which servers may be
 * used at all, the `required` hook rule, injection caps and the budget.
 */
export declare const getPolicy: <ThrowOnError extends boolean = false>(options?: Options<GetPolicyData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetPolicyResponses, GetPolicyErrors, ThrowOnError, "fields">;
/**
 * Put Policy
 *
 * Change the policy (fields left out keep their value). A server the
 * new list denies is blocked for everyone at once, as by the kill switch;
 * one it allows again is unblocked and gets nothing until users consent.
 */
export declare const putPolicy: <ThrowOnError extends boolean = false>(options: Options<PutPolicyData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PutPolicyResponses, PutPolicyErrors, ThrowOnError, "fields">;
/**
 * List Servers
 */
export declare const listServers: <ThrowOnError extends boolean = false>(options?: Options<ListServersData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ListServersResponses, ListServersErrors, ThrowOnError, "fields">;
/**
 * Register Server
 */
export declare const registerServer: <ThrowOnError extends boolean = false>(options: Options<RegisterServerData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<RegisterServerResponses, RegisterServerErrors, ThrowOnError, "fields">;
/**
 * Delete Server
 */
export declare const deleteServer: <ThrowOnError extends boolean = false>(options: Options<DeleteServerData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<DeleteServerResponses, DeleteServerErrors, ThrowOnError, "fields">;
/**
 * Get Server
 */
export declare const getServer: <ThrowOnError extends boolean = false>(options: Options<GetServerData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetServerResponses, GetServerErrors, ThrowOnError, "fields">;
/**
 * Patch Server
 */
export declare const patchServer: <ThrowOnError extends boolean = false>(options: Options<PatchServerData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PatchServerResponses, PatchServerErrors, ThrowOnError, "fields">;
/**
 * Block Server
 *
 * The kill switch: every live grant suspended, every subscription
 * revoked (unsubscribed on the server), and nothing reaches the server
 * until it is unblocked.
 */
export declare const blockServer: <ThrowOnError extends boolean = false>(options: Options<BlockServerData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<BlockServerResponses, BlockServerErrors, ThrowOnError, "fields">;
/**
 * Sync Server
 *
 * Async on purpose: the MCP conversation runs on the ASGI event loop
 * through the async client layer; only the database work hops to a thread.
 */
export declare const syncServer: <ThrowOnError extends boolean = false>(options: Options<SyncServerData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<SyncServerResponses, SyncServerErrors, ThrowOnError, "fields">;
/**
 * Unblock Server
 *
 * Lift the block. Restores nothing by itself: users consent again.
 */
export declare const unblockServer: <ThrowOnError extends boolean = false>(options: Options<UnblockServerData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<UnblockServerResponses, UnblockServerErrors, ThrowOnError, "fields">;
/**
 * Lifecycle
 *
 * Evaluate one lifecycle event of the session: what to inject, what was
 * held back and why, and whether a thread refresh was scheduled. With
 * ``dialect``, ``event`` is the host's own name for it (``hooks.dialects``).
 */
export declare const lifecycle: <ThrowOnError extends boolean = false>(options: Options<LifecycleData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<LifecycleResponses, LifecycleErrors, ThrowOnError, "fields">;
/**
 * Delete Sso
 */
export declare const deleteSso: <ThrowOnError extends boolean = false>(options?: Options<DeleteSsoData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<DeleteSsoResponses, DeleteSsoErrors, ThrowOnError, "fields">;
/**
 * Get Sso
 */
export declare const getSso: <ThrowOnError extends boolean = false>(options?: Options<GetSsoData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetSsoResponses, GetSsoErrors, ThrowOnError, "fields">;
/**
 * Put Sso
 */
export declare const putSso: <ThrowOnError extends boolean = false>(options: Options<PutSsoData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PutSsoResponses, PutSsoErrors, ThrowOnError, "fields">;
/**
 * Post Scim Token
 */
export declare const postScimToken: <ThrowOnError extends boolean = false>(options?: Options<PostScimTokenData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PostScimTokenResponses, PostScimTokenErrors, ThrowOnError, "fields">;
/**
 * List Subscriptions
 */
export declare const listSubscriptions: <ThrowOnError extends boolean = false>(options?: Options<ListSubscriptionsData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ListSubscriptionsResponses, ListSubscriptionsErrors, ThrowOnError, "fields">;
/**
 * Create Subscription
 */
export declare const createSubscription: <ThrowOnError extends boolean = false>(options: Options<CreateSubscriptionData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<CreateSubscriptionResponses, CreateSubscriptionErrors, ThrowOnError, "fields">;
/**
 * Revoke Subscription
 */
export declare const revokeSubscription: <ThrowOnError extends boolean = false>(options: Options<RevokeSubscriptionData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<RevokeSubscriptionResponses, RevokeSubscriptionErrors, ThrowOnError, "fields">;
/**
 * Get Subscription
 */
export declare const getSubscription: <ThrowOnError extends boolean = false>(options: Options<GetSubscriptionData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetSubscriptionResponses, GetSubscriptionErrors, ThrowOnError, "fields">;
/**
 * Change Subscription
 */
export declare const changeSubscription: <ThrowOnError extends boolean = false>(options: Options<ChangeSubscriptionData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ChangeSubscriptionResponses, ChangeSubscriptionErrors, ThrowOnError, "fields">;
/**
 * Pull Events
 *
 * Pull delivery: the same bodies the host endpoint receives, in order.
 * Events are handed over only while the user's consent holds at the pull
 * (without their data otherwise); consent that cannot be read answers 503
 * ``consent_unavailable`` (``forward_check_failed`` if the check itself
 * failed), and nothing is lost.
 */
export declare const pullEvents: <ThrowOnError extends boolean = false>(options: Options<PullEventsData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PullEventsResponses, PullEventsErrors, ThrowOnError, "fields">;
/**
 * Pause Subscription
 */
export declare const pauseSubscription: <ThrowOnError extends boolean = false>(options: Options<PauseSubscriptionData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PauseSubscriptionResponses, PauseSubscriptionErrors, ThrowOnError, "fields">;
/**
 * Resume Subscription
 */
export declare const resumeSubscription: <ThrowOnError extends boolean = false>(options: Options<ResumeSubscriptionData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ResumeSubscriptionResponses, ResumeSubscriptionErrors, ThrowOnError, "fields">;
/**
 * Rotate Secret
 */
export declare const rotateSecret: <ThrowOnError extends boolean = false>(options: Options<RotateSecretData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<RotateSecretResponses, RotateSecretErrors, ThrowOnError, "fields">;
/**
 * List Tasks
 */
export declare const listTasks: <ThrowOnError extends boolean = false>(options?: Options<ListTasksData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ListTasksResponses, ListTasksErrors, ThrowOnError, "fields">;
/**
 * Hand Over Task
 *
 * A task the host created on a server, whose result carried an
 * ``eventSource``: the console subscribes to it and watches the task
 * (``tasks/get``) until it is terminal, then ends the subscription.
 */
export declare const handOverTask: <ThrowOnError extends boolean = false>(options: Options<HandOverTaskData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<HandOverTaskResponses, HandOverTaskErrors, ThrowOnError, "fields">;
/**
 * Get Task
 */
export declare const getTask: <ThrowOnError extends boolean = false>(options: Options<GetTaskData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetTaskResponses, GetTaskErrors, ThrowOnError, "fields">;
/**
 * Refresh Thread
 *
 * Refresh the tools and resources of every server of the thread (the thread-scoped capability refresh).
 */
export declare const refreshThread: <ThrowOnError extends boolean = false>(options: Options<RefreshThreadData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<RefreshThreadResponses, RefreshThreadErrors, ThrowOnError, "fields">;
/**
 * Delete User
 */
export declare const deleteUser: <ThrowOnError extends boolean = false>(options: Options<DeleteUserData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<DeleteUserResponses, DeleteUserErrors, ThrowOnError, "fields">;
/**
 * Get User
 */
export declare const getUser: <ThrowOnError extends boolean = false>(options: Options<GetUserData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<GetUserResponses, GetUserErrors, ThrowOnError, "fields">;
/**
 * Put User
 */
export declare const putUser: <ThrowOnError extends boolean = false>(options: Options<PutUserData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PutUserResponses, PutUserErrors, ThrowOnError, "fields">;
/**
 * List Grants
 *
 * Every grant of the user, newest first. With ``at`` (RFC 3339): the
 * grants as they stood at that moment, each with its status then, rebuilt
 * from the ledger (one page), and ``ledger``: the newest entry replayed and
 * the signed checkpoint that covers it.
 */
export declare const listGrants: <ThrowOnError extends boolean = false>(options: Options<ListGrantsData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<ListGrantsResponses, ListGrantsErrors, ThrowOnError, "fields">;
/**
 * Create Login Link
 */
export declare const createLoginLink: <ThrowOnError extends boolean = false>(options: Options<CreateLoginLinkData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<CreateLoginLinkResponses, CreateLoginLinkErrors, ThrowOnError, "fields">;
/**
 * Put Credentials
 */
export declare const putCredentials: <ThrowOnError extends boolean = false>(options: Options<PutCredentialsData, ThrowOnError>) => import("./client/types.gen.js").RequestResult<PutCredentialsResponses, PutCredentialsErrors, ThrowOnError, "fields">;
