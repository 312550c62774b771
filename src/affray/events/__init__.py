"""Events: the immutable facts of a fight, and the one codec for them."""

from affray.events.core import *  # noqa: F401,F403
from affray.events.core import Event
from affray.events import mrq1  # noqa: F401  (registers system events)
from affray.events import mythras  # noqa: F401  (registers system events)
from affray.events import uesrpg  # noqa: F401  (registers system events)
from affray.events import rolemaster  # noqa: F401  (registers system events)
from affray.events import rq3  # noqa: F401  (registers system events)
