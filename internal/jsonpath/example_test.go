package jsonpath_test

import (
	"fmt"

	"github.com/sluicedata/sluice/internal/jsonpath"
)

func ExampleLookupString() {
	token, found, err := jsonpath.LookupString([]byte(`{"nextPageToken":"CAUQAA","items":[]}`), "nextPageToken")
	fmt.Println(token, found, err)
	// Output:
	// CAUQAA true <nil>
}
