from typing import Any, Literal, Optional, Sequence, Tuple, Union

import numpy as np

def load(
    interaction: Any,
    meanings: Literal["auto", "labels", "sender_input"] = ...,
    n_attributes: Optional[int] = ...,
    n_values: Optional[Union[int, Sequence[int]]] = ...,
) -> Tuple[np.ndarray, np.ndarray]: ...
