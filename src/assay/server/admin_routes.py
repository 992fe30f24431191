"""The admin's endpoints: API keys and the policies in force."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from assay.keys import Role
from assay.server.access import acting_engine, require

router = APIRouter(prefix="/v1", tags=["admin"], dependencies=[Depends(require(Role.ADMIN))])


class NewKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    roles: list[str] = Field(min_length=1, description="reader, curator, auditor, admin")
    min_severity: str | None = Field(
        None,
        description="The mildest severity the key may ask under (informational, financial, "
        "legal, safety_critical): a milder policy is refused with 403.",
    )
    grants: list[str] = Field(
        [],
        max_length=32,
        description="Access labels whose documents the key may read besides unlabelled ones "
        "(auditor and admin keys read every document).",
    )


@router.get("/keys", summary="Every API key (never its secret)")
def list_keys(request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    return {"keys": [k.to_dict() for k in engine.keys.list()]}


@router.post("/keys", status_code=201, summary="Create a key; its token is shown only now")
def create_key(body: NewKey, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    key, token = engine.keys.create(
        body.name, body.roles, min_severity=body.min_severity, grants=body.grants
    )
    return key.to_dict() | {"token": token}


@router.delete("/keys/{key_id}", summary="Revoke a key (it stops working at once)")
def revoke_key(key_id: str, request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    return engine.keys.revoke(key_id).to_dict()


@router.get("/policies", summary="The policies this service knows, with their origin")
def list_policies(request: Request) -> dict[str, Any]:
    engine = acting_engine(request)
    book = engine.policies
    return {
        "default": engine.settings.default_policy,
        "policies": [
            policy.as_dict() | {"digest": policy.digest, "origin": book.origin(policy.name)}
            for policy in (book.get(name) for name in book.names())
        ],
    }
