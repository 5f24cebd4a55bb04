"""Reads a multi-document YAML stream on stdin and writes its documents as one JSON array.

Used by tests/kafka/deploy.rs with the PyYAML that scripts/test-tools installs beside kubernetes-validate.
"""
import json
import sys

import yaml

json.dump([d for d in yaml.safe_load_all(sys.stdin) if d is not None], sys.stdout)
