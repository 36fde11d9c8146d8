// Package capi is the SWIG-generated low-level layer over the C API of
// libechomq (echomq.h). It is internal: use package echomq instead.
//
// capi.go and capi_wrap.c are generated from echomq.i and checked in, so
// building the Go package needs no SWIG. After changing echomq.i,
// regenerate them from bindings/go with:
//
//	go generate ./internal/capi
package capi

//go:generate swig -go -cgo -intgosize 64 -DSWIGWORDSIZE64 -module capi -o capi_wrap.c -outdir . echomq.i
//go:generate gofmt -w capi.go
