package target

import (
	"context"
	"fmt"

	"github.com/chatrooms/conformance/client"
)

// Discover fills in what the description left out: each user's id and
// username (GET /v1/user), a room of each kind for user 1, and a write room
// shared by users 1 and 2. A token the target refuses both as a bearer
// header and as a query parameter is a description error naming the user; a
// target that cannot be reached is a *client.TransportError. Room lists that
// do not decode leave hints empty: the checks report the broken list.
func (d *Description) Discover(ctx context.Context, c *client.Client) error {
	for i := range d.Users {
		u := &d.Users[i]
		if u.ID != "" && u.Username != "" {
			continue
		}
		var me []struct {
			ID       string `json:"id"`
			Username string `json:"username"`
		}
		if err := getJSON(ctx, c, u.Token, "/v1/user", &me); err != nil {
			// A server that ignores the bearer header should fail the
			// bearer check, not look like a bad token.
			if retry := getJSONQueryToken(ctx, c, u.Token, "/v1/user", &me); retry != nil {
				return describe(fmt.Sprintf("users[%d].token", i), err)
			}
		}
		if len(me) != 1 || me[0].ID == "" {
			return &Error{Key: fmt.Sprintf("users[%d]", i), Reason: "GET /v1/user did not answer with one user carrying an id; give id and username in the description"}
		}
		if u.ID == "" {
			u.ID = me[0].ID
		}
		if u.Username == "" {
			u.Username = me[0].Username
		}
	}
	h := d.Rooms
	if h.OneToOne != "" && h.Org != "" && h.Repo != "" && h.Channel != "" && d.WriteRoom != "" {
		return nil
	}
	rooms, err := d.roomsOf(ctx, c, 0)
	if err != nil {
		return err
	}
	if d.Discovered == nil {
		d.Discovered = map[string]bool{}
	}
	pick := func(hint *string, key, kind string) {
		for _, r := range rooms {
			if *hint == "" && r.PlatformType == kind {
				*hint, d.Discovered[key] = r.ID, true
			}
		}
	}
	pick(&d.Rooms.OneToOne, "one_to_one", "ONETOONE")
	pick(&d.Rooms.Org, "org", "ORG")
	pick(&d.Rooms.Repo, "repo", "REPO")
	if d.Rooms.Channel == "" {
		var channels []roomRef
		if err := getJSON(ctx, c, d.Users[0].Token, "/v1/user/"+d.Users[0].ID+"/channels", &channels); err == nil && len(channels) > 0 {
			d.Rooms.Channel, d.Discovered["channel"] = channels[0].ID, true
		}
	}
	if d.WriteRoom == "" {
		shared := rooms
		if len(d.Users) > 1 {
			other, err := d.roomsOf(ctx, c, 1)
			if err != nil {
				return err
			}
			shared = intersect(rooms, other)
		}
		// Prefer repository and organisation rooms, then channels.
		for _, kind := range []string{"REPO", "ORG", "USER_CHANNEL"} {
			for _, r := range shared {
				if d.WriteRoom == "" && r.PlatformType == kind && r.ID != d.HideRoom {
					d.WriteRoom, d.Discovered["write_room"] = r.ID, true
				}
			}
		}
	}
	return nil
}

type roomRef struct {
	ID           string `json:"id"`
	PlatformType string `json:"platformType"`
	OneToOne     bool   `json:"oneToOne"`
}

func (d *Description) roomsOf(ctx context.Context, c *client.Client, i int) ([]roomRef, error) {
	var rooms []roomRef
	err := getJSON(ctx, c, d.Users[i].Token, "/v1/user/"+d.Users[i].ID+"/rooms", &rooms)
	if _, unreachable := err.(*client.TransportError); unreachable {
		return nil, err
	}
	return rooms, nil // on any other error: no hints; the room checks will say why
}

func intersect(a, b []roomRef) []roomRef {
	in := map[string]bool{}
	for _, r := range b {
		in[r.ID] = true
	}
	var out []roomRef
	for _, r := range a {
		if in[r.ID] && !r.OneToOne {
			out = append(out, r)
		}
	}
	return out
}

type statusError struct {
	path   string
	status int
	body   []byte
}

func (e *statusError) Error() string {
	return fmt.Sprintf("GET %s answered %d: %s", e.path, e.status, client.Snippet(e.body, 120))
}

func getJSON(ctx context.Context, c *client.Client, token, path string, v any) error {
	resp, err := c.Do(ctx, client.Request{Method: "GET", Path: path, Token: token})
	if err != nil {
		return err
	}
	if resp.Status != 200 {
		return &statusError{path: path, status: resp.Status, body: resp.Body}
	}
	return resp.JSON(v)
}

func getJSONQueryToken(ctx context.Context, c *client.Client, token, path string, v any) error {
	resp, err := c.Do(ctx, client.Request{Method: "GET", Path: path, Token: token, Place: client.QueryToken})
	if err != nil {
		return err
	}
	if resp.Status != 200 {
		return &statusError{path: path, status: resp.Status, body: resp.Body}
	}
	return resp.JSON(v)
}

// describe keeps transport errors as they are (the target is unreachable)
// and turns anything else into a description error about key.
func describe(key string, err error) error {
	if _, ok := err.(*client.TransportError); ok {
		return err
	}
	return &Error{Key: key, Reason: err.Error()}
}
