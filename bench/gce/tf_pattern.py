#!/usr/bin/env python3
"""TensorFlow's GCEClusterResolver request pattern
(gce_cluster_resolver.py), replayed against the loopback fake with nothing but
the standard library — a lower bound for TF itself, which adds
googleapiclient's discovery document and object layers on top:

  per instance group (UnionClusterResolver of one resolver per group):
    POST .../instanceGroups/G/listInstances?orderBy=name  {"instanceState":"RUNNING"}
         (and again with pageToken while the answer has nextPageToken)
    GET  .../instances/NAME   for every item: networkInterfaces[0].networkIP
  then sorted("ip:port") per group, groups concatenated.

One token from the metadata server first (oauth2client caches it), one
kept-alive HTTP/1.1 connection throughout (httplib2 keeps it alive too).

  tf_pattern.py HOST:PORT PROJECT ZONE PORT GROUP...
prints {"worker": [...]} and, on stderr, the number of requests made.
"""
import http.client
import json
import sys


def main():
    hostport, project, zone, port = sys.argv[1:5]
    groups = sys.argv[5:]
    conn = http.client.HTTPConnection(hostport)
    requests = 0

    def call(method, path, body=None, headers=None):
        nonlocal requests
        requests += 1
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        if r.status != 200:
            raise SystemExit("%s %s: HTTP %d" % (method, path, r.status))
        return json.loads(data)

    tok = call("GET", "/computeMetadata/v1/instance/service-accounts/default/token",
               headers={"Metadata-Flavor": "Google"})["access_token"]
    auth = {"Authorization": "Bearer " + tok}
    base = "/compute/v1/projects/%s/zones/%s" % (project, zone)
    cluster = []
    for g in groups:
        items, token = [], None
        while True:
            path = "%s/instanceGroups/%s/listInstances?orderBy=name" % (base, g)
            if token:
                path += "&pageToken=" + token
            page = call("POST", path, body=json.dumps({"instanceState": "RUNNING"}),
                        headers=dict(auth, **{"Content-Type": "application/json"}))
            items += page["items"]  # TF: KeyError on an empty group
            token = page.get("nextPageToken")
            if not token:
                break
        addrs = []
        for it in items:
            name = it["instance"].split("/")[-1]
            inst = call("GET", "%s/instances/%s" % (base, name), headers=auth)
            addrs.append("%s:%s" % (inst["networkInterfaces"][0]["networkIP"], port))
        cluster += sorted(addrs)
    print(json.dumps({"worker": cluster}))
    print(requests, file=sys.stderr)


if __name__ == "__main__":
    main()
