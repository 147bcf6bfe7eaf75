"""Opaque public identifiers: a readable prefix plus 96 random bits."""

import secrets

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower-case


def new_id(prefix: str) -> str:
    value = secrets.randbits(100)
    chars = []
    for _ in range(20):
        value, index = divmod(value, 32)
        chars.append(_ALPHABET[index])
    return f"{prefix}_{''.join(chars)}"


def id_factory(prefix: str):
    """The model-field default for ``prefix`` (migrations need a named, importable callable)."""
    return globals()[f"new_{prefix}_id"]


# One named function per prefix, so migrations can reference them.
def new_hst_id() -> str:
    return new_id("hst")


def new_key_id() -> str:
    return new_id("key")


def new_usr_id() -> str:
    return new_id("usr")


def new_lnk_id() -> str:
    return new_id("lnk")


def new_srv_id() -> str:
    return new_id("srv")


def new_grt_id() -> str:
    return new_id("grt")


def new_ogr_id() -> str:
    return new_id("ogr")


def new_req_id() -> str:
    return new_id("req")


def new_sub_id() -> str:
    return new_id("sub")


def new_dlv_id() -> str:
    return new_id("dlv")


def new_inj_id() -> str:
    return new_id("inj")


def new_evt_id() -> str:
    return new_id("evt")


def new_msg_id() -> str:
    return new_id("msg")


def new_lcs_id() -> str:
    return new_id("lcs")


def new_lce_id() -> str:
    return new_id("lce")


def new_hkf_id() -> str:
    return new_id("hkf")


def new_trf_id() -> str:
    return new_id("trf")


def new_tsk_id() -> str:
    return new_id("tsk")


def new_ses_id() -> str:
    return new_id("ses")


def new_acr_id() -> str:
    return new_id("acr")
