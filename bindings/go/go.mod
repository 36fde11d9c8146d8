module github.com/echomq/echomq/bindings/go

go 1.22
