// A client's session through the proxy with Node's own fetch (trusting the
// proxy's CA through NODE_EXTRA_CA_CERTS): the same operations as
// session.sh. Exits non-zero on any answer that is not a success.
const { PROXY, TOKEN, TOKEN2, USER_ID, USER2_ID, ROOM } = process.env;

async function call(token, method, path, body) {
  const headers = { Accept: "application/json", Authorization: `Bearer ${token}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(PROXY + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const me = await call(TOKEN, "GET", "/v1/user");
if (!Array.isArray(me) || me[0].id !== USER_ID) throw new Error("GET /v1/user: not user 1");
await call(TOKEN, "GET", `/v1/user/${USER_ID}/rooms`);
await call(TOKEN, "GET", `/v1/user/${USER_ID}/orgs`);
await call(TOKEN, "GET", `/v1/user/${USER_ID}/repos`);
await call(TOKEN, "GET", `/v1/user/${USER_ID}/channels`);
const page = await call(TOKEN, "GET", `/v1/rooms/${ROOM}/chatMessages?limit=10`);
const sent = await call(TOKEN, "POST", `/v1/rooms/${ROOM}/chatMessages`, { text: "hello from node", status: false });
await call(TOKEN, "GET", `/v1/rooms/${ROOM}/chatMessages/${sent.id}`);
await call(TOKEN, "PUT", `/v1/rooms/${ROOM}/chatMessages/${sent.id}`, { text: "edited from node" });
await call(TOKEN2, "GET", `/v1/user/${USER2_ID}/rooms/${ROOM}/unreadItems`);
await call(TOKEN2, "POST", `/v1/user/${USER2_ID}/rooms/${ROOM}/unreadItems`, { chat: [sent.id] });
if (page.length > 0) await call(TOKEN, "GET", `/v1/rooms/${ROOM}/chatMessages?beforeId=${page[0].id}&limit=5`);
console.log(`node session: ${page.length} messages listed, sent ${sent.id}`);
