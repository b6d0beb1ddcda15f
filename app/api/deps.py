"""FastAPI dependencies, as ``Annotated`` aliases: one provider each, for REST and WebSocket routes alike
(both are an ``HTTPConnection``).

The providers are ``async def`` although they never wait: FastAPI runs a plain ``def`` dependency in a
worker thread, three thread hops for every request and every socket that connects (a sixth of the CPU a
connecting socket cost in a profile of 1,000 connecting at once)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from app.config import Settings
from app.rooms import RoomManager

from .limits import AddressLimits


async def _manager(connection: HTTPConnection) -> RoomManager:
    manager: RoomManager = connection.app.state.manager
    return manager


async def _settings(connection: HTTPConnection) -> Settings:
    settings: Settings = connection.app.state.settings
    return settings


async def _limits(connection: HTTPConnection) -> AddressLimits:
    limits: AddressLimits = connection.app.state.address_limits
    return limits


ManagerDep = Annotated[RoomManager, Depends(_manager)]
SettingsDep = Annotated[Settings, Depends(_settings)]
LimitsDep = Annotated[AddressLimits, Depends(_limits)]
