package profile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

const maxDepth = 64

// checkObject makes sure data is one JSON object with no duplicate keys at
// any depth and no top-level key that matches a known field only when case
// is ignored. encoding/json would otherwise take {"cmd":["ls"],"CMD":["rm"]}
// as rm while a person approving the request reads ls.
func checkObject(data []byte, fields ...string) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil || tok != json.Delim('{') {
		return fmt.Errorf("%w: data is not a JSON object", ErrBadRequest)
	}
	if err := walkObject(d, 1, fields); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data", ErrBadRequest)
	}
	return nil
}

func walkObject(d *json.Decoder, depth int, fields []string) error {
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
		k, _ := tok.(string)
		if seen[k] {
			return fmt.Errorf("%w: duplicate key %q", ErrBadRequest, truncate(k, 40))
		}
		seen[k] = true
		for _, f := range fields {
			if k != f && strings.EqualFold(k, f) {
				return fmt.Errorf("%w: key %q is not %q", ErrBadRequest, truncate(k, 40), f)
			}
		}
		if err := walkValue(d, depth+1); err != nil {
			return err
		}
	}
	if _, err := d.Token(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return nil
}

func walkValue(d *json.Decoder, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested too deep", ErrBadRequest)
	}
	tok, err := d.Token()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	switch tok {
	case json.Delim('{'):
		return walkObject(d, depth, nil)
	case json.Delim('['):
		for d.More() {
			if err := walkValue(d, depth+1); err != nil {
				return err
			}
		}
		if _, err := d.Token(); err != nil {
			return fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
	}
	return nil
}

func unmarshal(data []byte, v any, fields ...string) error {
	if err := checkObject(data, fields...); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%w: field %s: want %s", ErrBadRequest, te.Field, te.Type)
		}
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return nil
}

func decodeExec(data []byte) (ExecRequest, []string, error) {
	var req ExecRequest
	if err := unmarshal(data, &req, "cmd", "cwd", "env", "timeout", "stdin", "network"); err != nil {
		return req, nil, err
	}
	argv, err := req.Argv()
	if err != nil {
		return req, nil, err
	}
	if req.Timeout < 0 || req.Timeout > MaxTimeoutSeconds {
		return req, nil, fmt.Errorf("%w: timeout %d outside 0..%d", ErrBadRequest, req.Timeout, MaxTimeoutSeconds)
	}
	for k, v := range req.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || hasNUL(v) {
			return req, nil, fmt.Errorf("%w: env name %q or its value is not allowed", ErrBadRequest, truncate(k, 40))
		}
	}
	return req, argv, nil
}

func decodeRead(data []byte) (ReadRequest, error) {
	var req ReadRequest
	if err := unmarshal(data, &req, "path", "offset", "length"); err != nil {
		return req, err
	}
	if req.Path == "" {
		return req, fmt.Errorf("%w: path missing", ErrBadRequest)
	}
	if req.Offset < 0 || (req.Length != nil && *req.Length < 0) {
		return req, fmt.Errorf("%w: negative offset or length", ErrBadRequest)
	}
	return req, nil
}

func decodeWrite(data []byte) (WriteRequest, []byte, error) {
	var req WriteRequest
	if err := unmarshal(data, &req, "path", "content", "encoding", "append", "mkdir"); err != nil {
		return req, nil, err
	}
	if req.Path == "" {
		return req, nil, fmt.Errorf("%w: path missing", ErrBadRequest)
	}
	switch req.Encoding {
	case "", "utf-8":
		return req, []byte(req.Content), nil
	case "base64":
		b, err := base64.StdEncoding.Strict().DecodeString(req.Content)
		if err != nil {
			return req, nil, fmt.Errorf("%w: content is not standard base64: %v", ErrBadRequest, err)
		}
		return req, b, nil
	}
	return req, nil, fmt.Errorf("%w: encoding %q", ErrBadRequest, truncate(req.Encoding, 40))
}
