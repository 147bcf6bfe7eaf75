"""Staff sign-in through the organisation: the OIDC connection of a host,
the sign-in flow, SCIM provisioning and the staff sessions they start
(docs/host-integration.md §11)."""
