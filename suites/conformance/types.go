package conformance

import "encoding/json"

// The API's resources as the specs decode them. Pointers tell a field that
// is absent from one that holds a zero value.

type User struct {
	ID              string `json:"id"`
	Username        string `json:"username"`
	DisplayName     string `json:"displayName"`
	URL             string `json:"url"`
	AvatarURLSmall  string `json:"avatarUrlSmall"`
	AvatarURLMedium string `json:"avatarUrlMedium"`
	V               *int   `json:"v"`
}

type Room struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	Topic          *string `json:"topic"`
	URI            *string `json:"uri"`
	OneToOne       *bool   `json:"oneToOne"`
	UserCount      *int    `json:"userCount"`
	User           *User   `json:"user"`
	UnreadItems    *int    `json:"unreadItems"`
	Mentions       *int    `json:"mentions"`
	LastAccessTime *string `json:"lastAccessTime"`
	Lurk           *bool   `json:"lurk"`
	URL            string  `json:"url"`
	PlatformType   string  `json:"platformType"`
	Security       *string `json:"security"`
	V              *int    `json:"v"`
}

type Organisation struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	AvatarURL string `json:"avatar_url"`
	Room      *Room  `json:"room"`
}

type Repository struct {
	ID      int    `json:"id"`
	Name    string `json:"name"`
	URI     string `json:"uri"`
	Private bool   `json:"private"`
	Room    *Room  `json:"room"`
}

type Unread struct {
	Chat    []string `json:"chat"`
	Mention []string `json:"mention"`
}

type Message struct {
	ID       string         `json:"id"`
	Text     string         `json:"text"`
	HTML     string         `json:"html"`
	Sent     string         `json:"sent"`
	EditedAt *string        `json:"editedAt"`
	FromUser User           `json:"fromUser"`
	Unread   bool           `json:"unread"`
	ReadBy   int            `json:"readBy"`
	URLs     []URLRef       `json:"urls"`
	Mentions []MentionRef   `json:"mentions"`
	Issues   []IssueRef     `json:"issues"`
	Meta     map[string]any `json:"meta"`
	V        int            `json:"v"`
	Status   *bool          `json:"status"`
	// GV must never appear; it is decoded only to be checked.
	GV json.RawMessage `json:"gv"`
}

type URLRef struct {
	URL string `json:"url"`
}

type MentionRef struct {
	ScreenName string `json:"screenName"`
	UserID     string `json:"userId"`
}

type IssueRef struct {
	Number string `json:"number"`
}
