# Listens on the port given (every address), as torchrun's store holds
# MASTER_PORT on the first node, until killed.
import socket
import sys
import time

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", int(sys.argv[1])))
s.listen()
time.sleep(3600)
