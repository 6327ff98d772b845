package reference

import "time"

// The JSON shapes the server sends. Field order follows the API document.

// UserView is a user as the API shows it. V is set only on a message's sender.
type UserView struct {
	ID              string `json:"id"`
	Username        string `json:"username"`
	DisplayName     string `json:"displayName"`
	URL             string `json:"url"`
	AvatarURLSmall  string `json:"avatarUrlSmall"`
	AvatarURLMedium string `json:"avatarUrlMedium"`
	V               int    `json:"v,omitempty"`
}

// RoomView is a room as one user sees it.
type RoomView struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Topic          string    `json:"topic"`
	URI            string    `json:"uri,omitempty"`
	OneToOne       bool      `json:"oneToOne"`
	UserCount      *int      `json:"userCount,omitempty"`
	User           *UserView `json:"user,omitempty"`
	UnreadItems    int       `json:"unreadItems"`
	Mentions       int       `json:"mentions"`
	LastAccessTime *string   `json:"lastAccessTime,omitempty"`
	Lurk           bool      `json:"lurk"`
	URL            string    `json:"url"`
	PlatformType   string    `json:"platformType"`
	Security       string    `json:"security,omitempty"`
	V              int       `json:"v"`
}

// OrgView is an organisation entry.
type OrgView struct {
	ID        int       `json:"id"`
	Name      string    `json:"name"`
	AvatarURL string    `json:"avatar_url"`
	Room      *RoomView `json:"room,omitempty"`
}

// RepoView is a repository entry.
type RepoView struct {
	ID      int       `json:"id"`
	Name    string    `json:"name"`
	URI     string    `json:"uri"`
	Private bool      `json:"private"`
	Room    *RoomView `json:"room,omitempty"`
}

// UnreadView lists unread message ids of one user in one room.
type UnreadView struct {
	Chat    []string `json:"chat"`
	Mention []string `json:"mention"`
}

// MessageView is a message as one user sees it.
type MessageView struct {
	ID       string       `json:"id"`
	Text     string       `json:"text"`
	HTML     string       `json:"html"`
	Sent     string       `json:"sent"`
	EditedAt *string      `json:"editedAt"`
	FromUser UserView     `json:"fromUser"`
	Unread   bool         `json:"unread"`
	ReadBy   int          `json:"readBy"`
	URLs     []URLRef     `json:"urls"`
	Mentions []MentionRef `json:"mentions"`
	Issues   []IssueRef   `json:"issues"`
	Meta     struct{}     `json:"meta"`
	V        int          `json:"v"`
	Status   bool         `json:"status"`
}

// URLRef is an entry of a message's urls.
type URLRef struct {
	URL string `json:"url"`
}

// MentionRef is an entry of a message's mentions.
type MentionRef struct {
	ScreenName string `json:"screenName"`
	UserID     string `json:"userId"`
}

// IssueRef is an entry of a message's issues.
type IssueRef struct {
	Number string `json:"number"`
}

// timestamp formats t as the API does: UTC, millisecond precision.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
