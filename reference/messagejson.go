package reference

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
)

// RawJSON is a response body encoded ahead of time; handlers send it as is.
type RawJSON []byte

// The seam where a message's JSON is cut: the fields between head and tail
// are the only ones that differ between viewers or change without an edit.
// Inside JSON strings every quote is escaped, so the seam cannot occur in
// text or html.
var seam = []byte(`,"unread":false,"readBy":0,`)

// encodedMessage is a message version's JSON cut at the seam.
type encodedMessage struct{ head, tail []byte }

// messageCache keeps the JSON of message versions, so a page is assembled
// from cached bytes instead of encoded anew. It is the HTTP side's: the
// store returns Message values and tells which versions it dropped.
//
// A version is encoded the first time it is shown. Entries go when the
// store drops their version (an edit, an eviction: the handlers pass on
// what Send and Edit return); a version encoded while being dropped is
// checked with Store.Current after it is cached, so none outlives its
// message.
type messageCache struct {
	m     sync.Map // *Message -> *encodedMessage
	store *Store
	bufs  sync.Pool // *jsonBuf, for pages
}

// jsonBuf is a response body in a pooled buffer: writeJSON sends it and
// gives the buffer back, so pages do not allocate their tens of kilobytes
// anew each time.
type jsonBuf struct {
	b    []byte
	pool *sync.Pool
}

// release returns the buffer to its pool; one grown past 1 MiB is let go.
func (j *jsonBuf) release() {
	if j.pool != nil && cap(j.b) <= 1<<20 {
		j.b = j.b[:0]
		j.pool.Put(j)
	}
}

func (c *messageCache) encoded(m *Message) *encodedMessage {
	if v, ok := c.m.Load(m); ok {
		return v.(*encodedMessage)
	}
	e := encodeMessage(m)
	c.m.Store(m, e)
	if !c.store.Current(m) {
		c.m.Delete(m)
	}
	return e
}

// drop forgets versions the store no longer holds.
func (c *messageCache) drop(ms []*Message) {
	for _, m := range ms {
		c.m.Delete(m)
	}
}

// appendItem appends the message as its viewer sees it.
func (c *messageCache) appendItem(dst []byte, it Item) []byte {
	e := c.encoded(it.Msg)
	dst = append(dst, e.head...)
	dst = append(dst, `,"unread":`...)
	dst = strconv.AppendBool(dst, it.Unread)
	dst = append(dst, `,"readBy":`...)
	dst = strconv.AppendInt(dst, int64(it.ReadBy), 10)
	dst = append(dst, ',')
	return append(dst, e.tail...)
}

// page encodes a list of messages.
func (c *messageCache) page(items []Item) *jsonBuf {
	j, _ := c.bufs.Get().(*jsonBuf)
	if j == nil {
		j = &jsonBuf{pool: &c.bufs}
	}
	out := append(j.b, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = c.appendItem(out, it)
	}
	j.b = append(out, ']')
	return j
}

func (c *messageCache) one(it Item) RawJSON { return c.appendItem(nil, it) }

// messageView is the JSON shape of a message version, with unread false
// and readBy 0.
func messageView(m *Message) MessageView {
	c := m.body()
	v := MessageView{ID: m.ID, Text: c.Text, HTML: c.Rendered.HTML, Sent: timestamp(m.Sent),
		FromUser: m.From, V: m.V, Status: m.Status, Mentions: c.Mentions,
		URLs: make([]URLRef, 0, len(c.Rendered.URLs)), Issues: make([]IssueRef, 0, len(c.Rendered.Issues))}
	if m.EditedAt != nil {
		t := timestamp(*m.EditedAt)
		v.EditedAt = &t
	}
	if v.Mentions == nil {
		v.Mentions = []MentionRef{}
	}
	for _, u := range c.Rendered.URLs {
		v.URLs = append(v.URLs, URLRef{URL: u})
	}
	for _, n := range c.Rendered.Issues {
		v.Issues = append(v.Issues, IssueRef{Number: n})
	}
	return v
}

// encodeMessage encodes a version and cuts it at the seam.
func encodeMessage(m *Message) *encodedMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(messageView(m)); err != nil {
		panic("reference: a message view cannot be encoded: " + err.Error())
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	i := bytes.Index(b, seam)
	if i < 0 {
		panic("reference: message JSON lost its unread/readBy seam")
	}
	return &encodedMessage{head: b[:i:i], tail: b[i+len(seam):]}
}
