"""Contains all the data models used in inputs/outputs"""

from .accepted_out import AcceptedOut
from .access_deny_in import AccessDenyIn
from .access_request_in import AccessRequestIn
from .access_request_out import AccessRequestOut
from .access_request_out_status import AccessRequestOutStatus
from .access_request_page import AccessRequestPage
from .actor_out import ActorOut
from .as_of_ledger_out import AsOfLedgerOut
from .as_of_ledger_out_reason_type_0 import AsOfLedgerOutReasonType0
from .attempt_out import AttemptOut
from .audit_entry_out import AuditEntryOut
from .audit_entry_out_detail import AuditEntryOutDetail
from .audit_entry_out_hashed import AuditEntryOutHashed
from .audit_entry_out_subject_type_0 import AuditEntryOutSubjectType0
from .audit_filter import AuditFilter
from .audit_page import AuditPage
from .block_out import BlockOut
from .broken_out import BrokenOut
from .channel_in import ChannelIn
from .channel_in_type import ChannelInType
from .checkpoint_key_out import CheckpointKeyOut
from .checkpoint_out import CheckpointOut
from .consent_check_in import ConsentCheckIn
from .consent_check_out import ConsentCheckOut
from .consent_check_out_source_type_0 import ConsentCheckOutSourceType0
from .consent_request_created import ConsentRequestCreated
from .consent_request_in import ConsentRequestIn
from .consent_request_in_handlers_type_0_item import ConsentRequestInHandlersType0Item
from .consent_request_out import ConsentRequestOut
from .consent_request_out_status import ConsentRequestOutStatus
from .consistency_out import ConsistencyOut
from .consistency_query import ConsistencyQuery
from .credentials_in import CredentialsIn
from .credentials_in_headers import CredentialsInHeaders
from .delivery_out import DeliveryOut
from .delivery_page import DeliveryPage
from .drain_created_out import DrainCreatedOut
from .drain_in import DrainIn
from .drain_in_format import DrainInFormat
from .drain_out import DrainOut
from .endpoint_created_out import EndpointCreatedOut
from .endpoint_in import EndpointIn
from .endpoint_out import EndpointOut
from .error_body import ErrorBody
from .error_out import ErrorOut
from .event_source_in import EventSourceIn
from .event_source_in_input_type_0 import EventSourceInInputType0
from .event_type_out import EventTypeOut
from .event_type_out_input_schema import EventTypeOutInputSchema
from .event_type_out_payload_schema import EventTypeOutPayloadSchema
from .export_audit_format import ExportAuditFormat
from .filter_in import FilterIn
from .filter_in_priority_type_0_item import FilterInPriorityType0Item
from .grant_out import GrantOut
from .grant_out_source import GrantOutSource
from .grant_page import GrantPage
from .history_in import HistoryIn
from .history_in_role import HistoryInRole
from .hook_declaration_out import HookDeclarationOut
from .hook_declaration_out_raw_type_0 import HookDeclarationOutRawType0
from .inclusion_out import InclusionOut
from .inclusion_query import InclusionQuery
from .injection_in import InjectionIn
from .injection_out import InjectionOut
from .injection_out_trust import InjectionOutTrust
from .late_out import LateOut
from .lifecycle_in import LifecycleIn
from .lifecycle_in_dialect_type_0 import LifecycleInDialectType0
from .lifecycle_out import LifecycleOut
from .login_link_in import LoginLinkIn
from .login_link_out import LoginLinkOut
from .message_in import MessageIn
from .message_item_out import MessageItemOut
from .message_item_out_structured_context_type_0 import (
    MessageItemOutStructuredContextType0,
)
from .message_item_out_trust import MessageItemOutTrust
from .message_out import MessageOut
from .native_out import NativeOut
from .notice_out import NoticeOut
from .org_grant_in import OrgGrantIn
from .org_grant_out import OrgGrantOut
from .org_grant_page import OrgGrantPage
from .policy_in import PolicyIn
from .policy_in_server_list_mode_type_0 import PolicyInServerListModeType0
from .policy_out import PolicyOut
from .policy_out_server_list_mode import PolicyOutServerListMode
from .poll_out import PollOut
from .pulled_item import PulledItem
from .pulled_item_data import PulledItemData
from .pulled_page import PulledPage
from .recover_in import RecoverIn
from .refresh_out import RefreshOut
from .revoked_out import RevokedOut
from .scim_out import ScimOut
from .scim_token_out import ScimTokenOut
from .server_in import ServerIn
from .server_in_capabilities_type_0 import ServerInCapabilitiesType0
from .server_in_headers_type_0 import ServerInHeadersType0
from .server_in_trust import ServerInTrust
from .server_out import ServerOut
from .server_out_capabilities import ServerOutCapabilities
from .server_out_capability_sources import ServerOutCapabilitySources
from .server_page import ServerPage
from .server_patch import ServerPatch
from .server_patch_events_dialect_type_0 import ServerPatchEventsDialectType0
from .server_patch_headers_type_0 import ServerPatchHeadersType0
from .server_patch_trust_type_0 import ServerPatchTrustType0
from .skipped_out import SkippedOut
from .skipped_out_reason import SkippedOutReason
from .sso_in import SsoIn
from .sso_out import SsoOut
from .stream_out import StreamOut
from .stream_out_state import StreamOutState
from .subscription_in import SubscriptionIn
from .subscription_in_arguments_type_0 import SubscriptionInArgumentsType0
from .subscription_in_delivery import SubscriptionInDelivery
from .subscription_in_handler_type_0 import SubscriptionInHandlerType0
from .subscription_out import SubscriptionOut
from .subscription_out_arguments import SubscriptionOutArguments
from .subscription_out_channel import SubscriptionOutChannel
from .subscription_out_delivery_status_type_0 import SubscriptionOutDeliveryStatusType0
from .subscription_out_filter import SubscriptionOutFilter
from .subscription_out_handler_type_0 import SubscriptionOutHandlerType0
from .subscription_page import SubscriptionPage
from .subscription_patch import SubscriptionPatch
from .supported_events_out import SupportedEventsOut
from .suppressed_out import SuppressedOut
from .suppressed_out_detail import SuppressedOutDetail
from .task_in import TaskIn
from .task_out import TaskOut
from .task_out_event_source import TaskOutEventSource
from .task_out_status import TaskOutStatus
from .task_out_subscription_error_type_0 import TaskOutSubscriptionErrorType0
from .task_page import TaskPage
from .thread_refresh_in import ThreadRefreshIn
from .thread_refresh_out import ThreadRefreshOut
from .unsubscribe_out import UnsubscribeOut
from .unsubscribe_out_state import UnsubscribeOutState
from .user_in import UserIn
from .user_out import UserOut
from .verify_out import VerifyOut

__all__ = (
    "AcceptedOut",
    "AccessDenyIn",
    "AccessRequestIn",
    "AccessRequestOut",
    "AccessRequestOutStatus",
    "AccessRequestPage",
    "ActorOut",
    "AsOfLedgerOut",
    "AsOfLedgerOutReasonType0",
    "AttemptOut",
    "AuditEntryOut",
    "AuditEntryOutDetail",
    "AuditEntryOutHashed",
    "AuditEntryOutSubjectType0",
    "AuditFilter",
    "AuditPage",
    "BlockOut",
    "BrokenOut",
    "ChannelIn",
    "ChannelInType",
    "CheckpointKeyOut",
    "CheckpointOut",
    "ConsentCheckIn",
    "ConsentCheckOut",
    "ConsentCheckOutSourceType0",
    "ConsentRequestCreated",
    "ConsentRequestIn",
    "ConsentRequestInHandlersType0Item",
    "ConsentRequestOut",
    "ConsentRequestOutStatus",
    "ConsistencyOut",
    "ConsistencyQuery",
    "CredentialsIn",
    "CredentialsInHeaders",
    "DeliveryOut",
    "DeliveryPage",
    "DrainCreatedOut",
    "DrainIn",
    "DrainInFormat",
    "DrainOut",
    "EndpointCreatedOut",
    "EndpointIn",
    "EndpointOut",
    "ErrorBody",
    "ErrorOut",
    "EventSourceIn",
    "EventSourceInInputType0",
    "EventTypeOut",
    "EventTypeOutInputSchema",
    "EventTypeOutPayloadSchema",
    "ExportAuditFormat",
    "FilterIn",
    "FilterInPriorityType0Item",
    "GrantOut",
    "GrantOutSource",
    "GrantPage",
    "HistoryIn",
    "HistoryInRole",
    "HookDeclarationOut",
    "HookDeclarationOutRawType0",
    "InclusionOut",
    "InclusionQuery",
    "InjectionIn",
    "InjectionOut",
    "InjectionOutTrust",
    "LateOut",
    "LifecycleIn",
    "LifecycleInDialectType0",
    "LifecycleOut",
    "LoginLinkIn",
    "LoginLinkOut",
    "MessageIn",
    "MessageItemOut",
    "MessageItemOutStructuredContextType0",
    "MessageItemOutTrust",
    "MessageOut",
    "NativeOut",
    "NoticeOut",
    "OrgGrantIn",
    "OrgGrantOut",
    "OrgGrantPage",
    "PolicyIn",
    "PolicyInServerListModeType0",
    "PolicyOut",
    "PolicyOutServerListMode",
    "PollOut",
    "PulledItem",
    "PulledItemData",
    "PulledPage",
    "RecoverIn",
    "RefreshOut",
    "RevokedOut",
    "ScimOut",
    "ScimTokenOut",
    "ServerIn",
    "ServerInCapabilitiesType0",
    "ServerInHeadersType0",
    "ServerInTrust",
    "ServerOut",
    "ServerOutCapabilities",
    "ServerOutCapabilitySources",
    "ServerPage",
    "ServerPatch",
    "ServerPatchEventsDialectType0",
    "ServerPatchHeadersType0",
    "ServerPatchTrustType0",
    "SkippedOut",
    "SkippedOutReason",
    "SsoIn",
    "SsoOut",
    "StreamOut",
    "StreamOutState",
    "SubscriptionIn",
    "SubscriptionInArgumentsType0",
    "SubscriptionInDelivery",
    "SubscriptionInHandlerType0",
    "SubscriptionOut",
    "SubscriptionOutArguments",
    "SubscriptionOutChannel",
    "SubscriptionOutDeliveryStatusType0",
    "SubscriptionOutFilter",
    "SubscriptionOutHandlerType0",
    "SubscriptionPage",
    "SubscriptionPatch",
    "SupportedEventsOut",
    "SuppressedOut",
    "SuppressedOutDetail",
    "TaskIn",
    "TaskOut",
    "TaskOutEventSource",
    "TaskOutStatus",
    "TaskOutSubscriptionErrorType0",
    "TaskPage",
    "ThreadRefreshIn",
    "ThreadRefreshOut",
    "UnsubscribeOut",
    "UnsubscribeOutState",
    "UserIn",
    "UserOut",
    "VerifyOut",
)
