#!/bin/sh
# Never answers: the proposer's timeout must kill it (and its child).
sleep 600
