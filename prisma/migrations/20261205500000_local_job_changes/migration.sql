-- The local back end learns of job changes made by any process (a submission, an edit, a deletion mark, a
-- row removed) from Postgres at once: one notice per change on channel rebound_local_job, payload
-- "<namespace>/<name>". Status writes (the operator's own, the most frequent) send none.
CREATE OR REPLACE FUNCTION rebound_local_job_changed() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND OLD.generation IS NOT DISTINCT FROM NEW.generation
     AND OLD."deletedAt" IS NOT DISTINCT FROM NEW."deletedAt" THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('rebound_local_job', OLD.namespace || '/' || OLD.name);
  ELSE
    PERFORM pg_notify('rebound_local_job', NEW.namespace || '/' || NEW.name);
  END IF;
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER rebound_local_job_changed
  AFTER INSERT OR UPDATE OR DELETE ON "LocalJob"
  FOR EACH ROW EXECUTE FUNCTION rebound_local_job_changed();
