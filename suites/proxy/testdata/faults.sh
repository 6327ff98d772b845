#!/usr/bin/env bash
# Requests through the proxy that a server with planted faults answers
# wrongly, and requests a careless client sends; failing answers are
# expected, so no --fail. Needs the variables session.sh needs, and ORG_ROOM (a room
# with messages).
set -uo pipefail
call() { curl -sS --cacert "$CA" -H 'Accept: application/json' "$@"; echo; }
as1() { call -H "Authorization: Bearer $TOKEN" "$@"; }

as1 "$PROXY/v1/user"                                   # the server: no Content-Type
as1 "$PROXY/v1/rooms/$ORG_ROOM/chatMessages?limit=3"   # the server: a field of the wrong type
as1 "$PROXY/v1/rooms/$ORG_ROOM/chatMessages?skip=1&limit=3"   # the server: a message twice (history)
as1 "$PROXY/v1/user/$USER_ID/orgs"                     # the server: 500
call "$PROXY/v1/user/$USER_ID/rooms"                   # the client: no token
as1 -X POST -H 'Content-Type: application/json' --data '{"text":5}' "$PROXY/v1/rooms/$ROOM/chatMessages"   # the client: text is not a string
as1 "$PROXY/v1/user/$USER_ID/channels?colour=blue"     # the client: no such parameter
