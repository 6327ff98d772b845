#!/usr/bin/env bash
# A client's session through the proxy, with curl: every operation of the
# API once or more, as two users. Every request is one the document allows,
# so a conforming server gives the proxy nothing to report.
# Needs: PROXY (base URL), CA (the proxy's CA file), TOKEN, TOKEN2, USER_ID,
# USER2_ID, ROOM (a room both users are in).
set -euo pipefail
call() { curl -sS --fail-with-body --cacert "$CA" -H 'Accept: application/json' "$@"; echo; }
as1() { call -H "Authorization: Bearer $TOKEN" "$@"; }
as2() { call -H "Authorization: Bearer $TOKEN2" "$@"; }
json=(-H 'Content-Type: application/json')

as1 "$PROXY/v1/user"
as2 "$PROXY/v1/user"
as1 "$PROXY/v1/user/$USER_ID/rooms"
as1 "$PROXY/v1/user/$USER_ID/orgs"
as1 "$PROXY/v1/user/$USER_ID/repos"
as1 "$PROXY/v1/user/$USER_ID/channels"
as1 "$PROXY/v1/rooms/$ROOM/chatMessages?limit=20"
sent=$(as1 -X POST "${json[@]}" --data '{"text":"hello through the proxy"}' "$PROXY/v1/rooms/$ROOM/chatMessages")
id=$(printf '%s' "$sent" | grep -o '"id":"[^"]*"' | head -1 | cut -d'"' -f4)
as1 "$PROXY/v1/rooms/$ROOM/chatMessages/$id"
as1 -X PUT "${json[@]}" --data '{"text":"edited through the proxy"}' "$PROXY/v1/rooms/$ROOM/chatMessages/$id"
as2 "$PROXY/v1/rooms/$ROOM/chatMessages?aroundId=$id&limit=5"
as2 "$PROXY/v1/user/$USER2_ID/rooms/$ROOM/unreadItems"
as2 -X POST "${json[@]}" --data "{\"chat\":[\"$id\"]}" "$PROXY/v1/user/$USER2_ID/rooms/$ROOM/unreadItems"
as2 "$PROXY/v1/user/$USER2_ID/rooms/$ROOM/unreadItems"
as1 "$PROXY/v1/rooms/$ROOM/chatMessages?beforeId=$id&limit=5"
as1 "$PROXY/v1/rooms/$ROOM/chatMessages?skip=2&limit=3"
call "$PROXY/v1/user?access_token=$TOKEN"
