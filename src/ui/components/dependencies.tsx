/** A step's dependencies as text, the inferred ones marked (the approval page's table, the step panel). */
/** A step's dependencies: the ones it lists, then the ones its references add, marked as inferred. */
export function Dependencies({
  listed,
  inferred,
}: {
  listed: readonly string[];
  inferred: readonly string[];
}) {
  if (listed.length === 0 && inferred.length === 0) return <>—</>;
  return (
    <>
      {listed.join(', ')}
      {inferred.length ? (
        <span class="inferred" title="Inferred from the step’s references ({{ steps.… }})">
          {listed.length ? ', ' : ''}
          {inferred.join(', ')} (inferred)
        </span>
      ) : null}
    </>
  );
}
