module github.com/echomq/echomq/examples/web/go

go 1.22

require github.com/echomq/echomq/bindings/go v0.0.0

replace github.com/echomq/echomq/bindings/go => ../../../bindings/go
