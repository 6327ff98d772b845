package reference

import (
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/chatrooms/conformance/fixtures"
)

// MaxTextUnits is the longest message text, in UTF-16 code units.
const MaxTextUnits = 4096

// Message is one version of a message. It is never changed once made (an
// edit makes a new version), so a reader may keep and encode one after the
// store's lock is released. Unread state and read receipts are not part of
// it: they come with it in an Item.
type Message struct {
	ID       string
	Room     string
	From     UserView // with v
	Status   bool
	Sent     time.Time
	EditedAt *time.Time
	V        int
	content
	// lazy, when set, renders the text on first use: a loaded history is
	// rendered as it is read, not all at start-up (see body).
	lazy *lazyContent
}

// lazyContent is the rendering of a loaded message, made once, on demand.
type lazyContent struct {
	once  sync.Once
	store *Store
	c     content
}

// body returns the message's text with its rendering and mentions. For a
// message of a loaded history they are made on first use (safely, from any
// goroutine); the result is the same as rendering at load time, since it
// depends only on the text and the store's fixed users.
func (m *Message) body() *content {
	if m.lazy == nil {
		return &m.content
	}
	m.lazy.once.Do(func() { m.lazy.c = m.lazy.store.prepare(m.Text) })
	return &m.lazy.c
}

// content is what a text makes: rendered before any lock is taken.
type content struct {
	Text     string
	Rendered Rendered
	Mentions []MentionRef // the mentioned names that are users, in order
	folded   string       // Text in lower case, for search
}

// Item is a message as one viewer sees it at one moment.
type Item struct {
	Msg    *Message
	Unread bool
	ReadBy int
}

// prepare renders text and resolves its mentions. It reads only what is
// fixed once the store is loaded, so it needs no lock.
func (s *Store) prepare(text string) content {
	c := content{Text: text, Rendered: s.render.Render(text), folded: strings.ToLower(text)}
	for _, name := range c.Rendered.Mentions {
		if u, ok := s.byName[strings.ToLower(name)]; ok {
			c.Mentions = append(c.Mentions, MentionRef{ScreenName: u.Username, UserID: u.ID})
		}
	}
	return c
}

// prepareAll prepares the texts of the given messages of a loaded history
// on every core; the others are left to render lazily. The result depends
// only on the texts, so loading stays deterministic.
func (s *Store) prepareAll(msgs []fixtures.Message, now []int) map[int]content {
	out := make([]content, len(now))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(now)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(now); i += workers {
				out[i] = s.prepare(msgs[now[i]].Text)
			}
		})
	}
	wg.Wait()
	byIndex := make(map[int]content, len(now))
	for i, idx := range now {
		byIndex[idx] = out[i]
	}
	return byIndex
}

// CheckText enforces the text rules: present, non-empty, at most
// MaxTextUnits UTF-16 units.
func CheckText(text string) error {
	if strings.TrimSpace(text) == "" {
		return errorf(Invalid, "text is required")
	}
	units := 0
	for _, r := range text {
		units += utf16.RuneLen(r)
		if units > MaxTextUnits {
			return errorf(Invalid, "text longer than 4096 UTF-16 units")
		}
	}
	return nil
}
