// kill_guard.cpp: placeholder until the hook lands.
