# Like a version-manager shim: prints a banner on stdout, then runs the real server ("$@").
echo "hermes-stdio wrapper v1 starting"
exec "$@"
