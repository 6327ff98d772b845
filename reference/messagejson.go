package reference

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// RawJSON is a response body encoded ahead of time; handlers send it as is.
type RawJSON []byte

// The seam where a message's JSON is cut: the fields between head and tail
// are the only ones that differ between viewers or change without an edit.
// Inside JSON strings every quote is escaped, so the seam cannot occur in
// text or html.
var seam = []byte(`,"unread":false,"readBy":0,`)

// splitMessageJSON encodes v (with Unread false and ReadBy 0) and cuts it
// at the seam.
func splitMessageJSON(v MessageView) (head, tail []byte) {
	v.Unread, v.ReadBy = false, 0
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("reference: a message view cannot be encoded: " + err.Error())
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	i := bytes.Index(b, seam)
	if i < 0 {
		panic("reference: message JSON lost its unread/readBy seam")
	}
	return b[:i:i], b[i+len(seam):]
}

// json appends the message as the given viewer sees it.
func (m *message) json(dst []byte, unread bool) []byte {
	dst = append(dst, m.head...)
	dst = append(dst, `,"unread":`...)
	dst = strconv.AppendBool(dst, unread)
	dst = append(dst, `,"readBy":`...)
	dst = strconv.AppendInt(dst, int64(len(m.readBy)), 10)
	dst = append(dst, ',')
	return append(dst, m.tail...)
}
