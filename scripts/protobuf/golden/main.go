// golden reads a JSON array of Kubernetes objects on stdin and prints, for each, what the real
// Kubernetes Go types make of it: the protobuf body (k8s\0 + runtime.Unknown) that client-go and
// kube-apiserver send, and the JSON kube-apiserver prints for the same typed object. The protobuf
// codec's golden test (packages/apiserver/src/protobuf) must agree with both. Run by golden.ts.
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	protobufserializer "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

type golden struct {
	Name     string `json:"name"`
	Protobuf string `json:"protobuf"`
	// JSON of the object decoded from the input JSON (what a JSON client sends)
	JSON json.RawMessage `json:"json"`
	// JSON of the object decoded from Protobuf (what kube-apiserver sees from a protobuf client)
	JSONFromProtobuf json.RawMessage `json:"jsonFromProtobuf"`
}

func main() {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, coordinationv1.AddToScheme, eventsv1.AddToScheme,
		networkingv1.AddToScheme, authenticationv1.AddToScheme, apiextensionsv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	decoder := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	pb := protobufserializer.NewSerializer(scheme, scheme)
	js := jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, scheme, scheme, jsonserializer.SerializerOptions{})

	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		panic(err)
	}
	var cases []struct {
		Name   string          `json:"name"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(input, &cases); err != nil {
		panic(err)
	}
	out := []golden{}
	for _, c := range cases {
		// compact, as clients send it: RawExtension and FieldsV1 keep the raw bytes they are given
		var compact bytes.Buffer
		if err := json.Compact(&compact, c.Object); err != nil {
			panic(fmt.Sprintf("%s: %v", c.Name, err))
		}
		obj, _, err := decoder.Decode(compact.Bytes(), nil, nil)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", c.Name, err))
		}
		var p, j bytes.Buffer
		if err := pb.Encode(obj, &p); err != nil {
			panic(fmt.Sprintf("%s: %v", c.Name, err))
		}
		if err := js.Encode(obj, &j); err != nil {
			panic(fmt.Sprintf("%s: %v", c.Name, err))
		}
		back, _, err := pb.Decode(p.Bytes(), nil, nil)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", c.Name, err))
		}
		var jp bytes.Buffer
		if err := js.Encode(back, &jp); err != nil {
			panic(fmt.Sprintf("%s: %v", c.Name, err))
		}
		out = append(out, golden{
			Name:             c.Name,
			Protobuf:         hex.EncodeToString(p.Bytes()),
			JSON:             json.RawMessage(strings.TrimSpace(j.String())),
			JSONFromProtobuf: json.RawMessage(strings.TrimSpace(jp.String())),
		})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
