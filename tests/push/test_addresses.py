"""Where a push may go, judged on the URL alone (at subscribe time) and on the addresses a name resolves to
(at send time): https on public addresses only, except the hosts ``PUSH_ALLOWED_HOSTS`` names."""

from __future__ import annotations

import ipaddress

import pytest

from app.push import EndpointRefused, SubscriptionRefused, check_subscription, is_public, parse_endpoint
from app.push.addresses import checked_addresses
from tests.push_service import Keys, b64url

ALLOWED = frozenset({"127.0.0.1:8123", "push.test"})
KEYS = Keys().json()


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "169.254.1.1", "100.64.0.1",
        "100.127.255.254", "0.0.0.0", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
        "192.0.2.1", "198.18.0.1", "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1", "64:ff9b::7f00:1",
        "2002:7f00:1::", "2002:a00:1::", "2001:db8::1", "100::1",
    ],
)  # fmt: skip
def test_special_addresses_are_not_public(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["8.8.8.8", "142.250.74.42", "2a00:1450:4001:830::200a"])
def test_public_addresses_are(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:5432/", "https"),
        ("http://fcm.googleapis.com/fcm/send/x", "https"),
        ("ftp://push.example.org/x", "https"),
        ("https://10.0.0.1/push", "public"),
        ("https://[::1]/push", "public"),
        ("https://[fd00:ec2::254]/push", "public"),
        ("https://169.254.169.254/latest/meta-data/", "public"),
        ("https://127.0.0.1:8124/push", "public"),  # the allowed host, on another port
        ("https://0x7f000001/push", "host name"),  # resolvers read these as 127.0.0.1
        ("https://2130706433/push", "host name"),
        ("https://127.1/push", "host name"),
        ("https://user:pw@push.example.org/x", "credentials"),
        ("https://push.example.org:0/x", "port"),
        ("https://push.example.org:99999/x", "port"),
        ("https://push.example.org/x#frag", "fragment"),
        ("https:///x", "host"),
        ("https://push.exämple.org/x", "plain URL"),
        ("https://push.example.org/" + "x" * 1000, "longer than 1024"),
    ],
)
def test_plainly_bad_endpoints_are_refused(url: str, why: str) -> None:
    with pytest.raises(EndpointRefused, match=why):
        parse_endpoint(url, ALLOWED)
    with pytest.raises(SubscriptionRefused, match=why):
        check_subscription(url, KEYS["p256dh"], KEYS["auth"], ALLOWED)


def test_good_endpoints_and_the_allowed_hosts() -> None:
    push = parse_endpoint("https://fcm.googleapis.com/fcm/send/abc:def?x=1")
    assert (push.scheme, push.host, push.port, push.target) == (
        "https",
        "fcm.googleapis.com",
        443,
        "/fcm/send/abc:def?x=1",
    )
    assert push.origin == "https://fcm.googleapis.com" and push.netloc == "fcm.googleapis.com"
    assert parse_endpoint("https://8.8.8.8:8443/p").origin == "https://8.8.8.8:8443"
    allowed = parse_endpoint("http://127.0.0.1:8123/push/a", ALLOWED)  # http, loopback: named in the setting
    assert allowed.origin == "http://127.0.0.1:8123"
    assert parse_endpoint("http://PUSH.test:9000/p", ALLOWED).host == "push.test"  # any port of a bare name
    # A name passes the URL's check: what it resolves to is judged when a push goes out.
    localhost = parse_endpoint("https://localhost:8123/p", ALLOWED)
    with pytest.raises(EndpointRefused, match="not a public one"):
        checked_addresses(localhost, [ipaddress.ip_address("127.0.0.1")], ALLOWED)
    mixed = [ipaddress.ip_address("8.8.8.8"), ipaddress.ip_address("10.0.0.1")]
    with pytest.raises(EndpointRefused, match="not a public one"):  # every address must be public
        checked_addresses(push, mixed, frozenset())
    assert str(checked_addresses(push, mixed[:1], frozenset())) == "8.8.8.8"
    with pytest.raises(EndpointRefused, match="no address"):
        checked_addresses(push, [], frozenset())


@pytest.mark.parametrize(
    ("p256dh", "auth", "why"),
    [
        (KEYS["p256dh"][:-4], KEYS["auth"], "65 bytes"),
        (KEYS["p256dh"], KEYS["auth"] + "AAAA", "16 bytes"),
        (KEYS["p256dh"], KEYS["auth"][:-3], "16 bytes"),
        (KEYS["p256dh"], "not base64!", "base64url"),
        ("A" + KEYS["p256dh"][1:], KEYS["auth"], "P-256"),  # 65 bytes, but not an uncompressed point
        (b64url(b"\x04" + b"\x00" * 64), KEYS["auth"], "P-256"),
        ("x" * 300, KEYS["auth"], "base64url"),
    ],
    ids=[
        "short-p256dh",
        "long-auth",
        "short-auth",
        "auth-not-base64",
        "not-uncompressed",
        "not-on-curve",
        "long",
    ],
)
def test_keys_of_the_wrong_size_or_curve_are_refused(p256dh: str, auth: str, why: str) -> None:
    with pytest.raises(SubscriptionRefused, match=why):
        check_subscription("https://push.example.org/x", p256dh, auth)


def test_good_keys_are_kept_without_padding() -> None:
    padded = (KEYS["p256dh"] + "=", KEYS["auth"] + "==")
    assert check_subscription("https://push.example.org/x", *padded) == (KEYS["p256dh"], KEYS["auth"])
