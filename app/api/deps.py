"""FastAPI dependencies, as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, WebSocket

from app.config import Settings
from app.rooms import RoomManager


def _manager(request: Request) -> RoomManager:
    manager: RoomManager = request.app.state.manager
    return manager


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def ws_manager(websocket: WebSocket) -> RoomManager:
    manager: RoomManager = websocket.app.state.manager
    return manager


def ws_settings(websocket: WebSocket) -> Settings:
    settings: Settings = websocket.app.state.settings
    return settings


ManagerDep = Annotated[RoomManager, Depends(_manager)]
SettingsDep = Annotated[Settings, Depends(_settings)]
WsManagerDep = Annotated[RoomManager, Depends(ws_manager)]
WsSettingsDep = Annotated[Settings, Depends(ws_settings)]
