"""How a REDIS_URL names a cluster, and the names of a room's channel and lease: one slot for both."""

from __future__ import annotations

from redis.crc import key_slot

from app.config import is_redis_cluster, plain_redis_url
from app.rooms.redis_link import lease_key, node_url, room_channel, room_of


def test_a_cluster_is_named_by_its_scheme() -> None:
    assert is_redis_cluster("redis+cluster://10.0.0.5:7000") and is_redis_cluster(
        "rediss+cluster://u:p@h:7000"
    )
    assert not is_redis_cluster("redis://10.0.0.5:6379/0") and not is_redis_cluster("rediss://h:6380")
    assert plain_redis_url("redis+cluster://u:p@h:7000") == "redis://u:p@h:7000"
    assert (
        plain_redis_url("rediss+cluster://h:7000?ssl_cert_reqs=none") == "rediss://h:7000?ssl_cert_reqs=none"
    )
    assert plain_redis_url("redis://h:6379/0") == "redis://h:6379/0"


def test_a_node_is_reached_with_the_urls_user_and_scheme() -> None:
    assert node_url("rediss://app:secret@seed:7000", "10.0.0.7", 7001) == "rediss://app:secret@10.0.0.7:7001"
    assert node_url("redis://seed:7000", "10.0.0.7", 7001) == "redis://10.0.0.7:7001"
    assert node_url("redis://seed:7000", "::1", 7001) == "redis://[::1]:7001"


def test_a_rooms_channel_and_lease_share_one_slot_and_rooms_spread() -> None:
    codes = [f"C{i:03d}" for i in range(200)]
    for code in codes:
        assert key_slot(room_channel(code).encode()) == key_slot(lease_key(code).encode())
        assert room_of(room_channel(code)) == code
    # Only the code is hashed: 200 tables take (nearly) 200 slots, not one.
    assert len({key_slot(room_channel(code).encode()) for code in codes}) > 190
